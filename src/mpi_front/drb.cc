// druba-mpi's `.drb` front end, at one thread count. `test`: the concrete search alone. `verify`:
// the paper's proof with the program's abstraction (its block, or every thread's location), its
// closure test and deadlock proof at process 0, and after a failed test the exact search towards
// exhaustion; with --upper-bound joint, O first, each process asking the solver for its part's
// abstract posts. That is what `druba verify --refine off --symmetric-search off` computes:
// refinement, the Horn solver and the invariants read off finite instances (which rest on the
// solver, not on the search) and every thread count at once are druba's alone. A safe verdict's
// certificate is druba's, byte for byte.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "abstraction/abstraction.h"
#include "common/diagnostics.h"
#include "common/digest.h"
#include "common/files.h"
#include "drb/parser.h"
#include "mpi_front/front.h"
#include "predabs/certificate.h"
#include "predabs/describer.h"
#include "predabs/model.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/thread_counts.h"

namespace druba::mpi {
namespace {

using distributed::Outcome;
using distributed::Property;
using predabs::PredicateAbstraction;
using Run = distributed::Run<predabs::IntModel>;

// The sandwich proof's O of a predicate abstraction, as druba's (predabs::MakeSandwich): the
// all-SAT post, with every thread's view in the set as it stands.
distributed::SandwichKind SandwichOf(const PredicateAbstraction& abs) {
  distributed::SandwichKind kind;
  kind.width = abs.width();
  kind.has_property = true;  // no thread fails
  kind.max_states = std::uint64_t{1} << 24;
  kind.reads_growing_set = true;
  kind.violates = [&abs](StateView a) { return abs.Violates(a); };
  kind.facts = distributed::StatesAsFacts;
  kind.oracle = [&abs](const std::vector<std::vector<std::uint8_t>>& all)
      -> std::unique_ptr<distributed::AbstractPost> {
    return std::make_unique<distributed::SetPost<PredicateAbstraction>>(abs, all);
  };
  return kind;
}

// What a safe verdict's certificate needs besides the run.
struct Certifying {
  const predabs::Program& program;
  const predabs::IntModel& model;
  const PredicateAbstraction& abs;
  const std::string& digest;
  bool deadlock;
};

// After exhaustion, every state reached (gathered at process 0), as druba's
// (predabs::DrbHooks::CertifyExplicit). Collective; the text at process 0.
std::string CertifyExplicit(const distributed::Comm& comm, const Run& run, const Outcome& done,
                            const Certifying& c, std::string* note) {
  std::string mine;
  bool fits = true;
  run.ForEachState([&](StateView s) {
    mine += predabs::ExplicitRow(c.program, c.model, s, &fits);
    mine += '\n';
  });
  if (comm.Min(fits ? 1 : 0) == 0) {
    *note = "a reachable value does not fit in 64 bits";
    return "";
  }
  const std::vector<std::vector<std::uint8_t>> parts =
      comm.Gather(std::vector<std::uint8_t>(mine.begin(), mine.end()));
  std::vector<std::string> rows;
  for (const std::vector<std::uint8_t>& part : parts) {
    std::string row;
    for (const std::uint8_t byte : part) {
      if (byte != '\n') {
        row += static_cast<char>(byte);
        continue;
      }
      rows.push_back(std::move(row));
      row.clear();
    }
  }
  if (comm.rank() != 0) return "";
  return predabs::ExplicitCertificate({c.digest, c.model.num_threads(), c.deadlock,
                                       std::string(ProofName(done.result.proof)), false},
                                      std::move(rows));
}

// A safe verdict's certificate, as druba's (predabs::DrbHooks::Certify): after exhaustion the
// states reached when there are no more of them than abstract states, when deadlock freedom is
// the property, or when the abstract set is not closed under every action; else the abstract set
// (the union; O after the upper-bound proof). Collective; the text at process 0.
std::string Certify(const distributed::Comm& comm, const Run& run, const Outcome& done,
                    const Certifying& c, std::string* note) {
  const StateStore* set = run.abstract_union();
  bool exact = false;
  if (done.result.proof == Proof::kExhausted && comm.rank() == 0) {
    std::uint64_t checks = 0;
    exact = c.deadlock || done.states <= set->size() ||
            CheckClosure(c.abs, *set, &checks, /*all_actions=*/true).has_value();
  }
  if (comm.Max(exact ? 1 : 0) != 0) return CertifyExplicit(comm, run, done, c, note);
  if (comm.rank() != 0) return "";
  return predabs::PredicatesCertificate({c.digest, c.model.num_threads(), false, c.deadlock,
                                         std::string(ProofName(done.result.proof)), &c.program,
                                         &c.abs.spec(), set});
}

// The program and its thread count, read at every process (InputError: why not).
struct Read {
  std::string source;
  drb::Program program;
  std::uint32_t threads = 0;
};

Read ReadProgram(const Options& o) {
  Read read;
  read.source = ReadFile(o.model);
  read.program = drb::ParseProgram(read.source, o.model);
  const predabs::ThreadCounts counts = predabs::ParseThreadCounts(o.threads, read.program, 0);
  if (counts.every_count_from_first) {
    throw InputError({"--threads", 0, 0}, "druba-mpi runs one thread count (N, not N..)");
  }
  read.threads = counts.first;
  if (o.command == "verify") predabs::ChooseAbstraction(read.program, o.abstraction, counts);
  return read;
}

}  // namespace

Described RunDrb(distributed::Comm& comm, const Options& o, LimitWatch& limits) {
  std::optional<Read> read;
  std::string error;
  try {
    read = ReadProgram(o);
  } catch (const InputError& e) {
    error = e.what();
  }
  AgreeRead(comm, error);
  const drb::Program& program = read->program;
  const std::uint32_t n = read->threads;
  const bool verify = o.command == "verify";
  const predabs::ChosenAbstraction chosen =
      verify ? predabs::ChooseAbstraction(program, o.abstraction, {n, false, n})
             : predabs::ChosenAbstraction{};
  predabs::IntModel model(program, n);
  model.SetLimits(&limits);
  // `test` needs no abstraction: the describer names steps and states with an empty one.
  PredicateAbstraction abs(model, chosen.spec(), o.solver_timeout_ms);
  abs.SetLimits(&limits);
  const bool deadlock = o.deadlock || program.check_deadlock;
  Property property;
  property.violates = [&](StateView s) {
    return model.AnyThreadFailed(s) || (deadlock && model.Deadlocked(s));
  };
  if (verify) {
    property.abstract_width = abs.width();
    property.abstract = [&abs](StateView s, std::span<Word> a) { abs.Abstract(s, a); };
    property.closure = [&abs](const StateStore& set, std::uint64_t* checks) {
      return CheckClosure(abs, set, checks);
    };
    if (deadlock) {  // the abstract states do not decide it (predabs::DrbHooks::SetUpProperty)
      property.concrete_proof = [&abs](const StateStore& set) { return abs.DeadlockFree(set); };
      property.concrete_what = "deadlock freedom";
    } else if (o.upper_bound == "joint") {
      property.sandwich = SandwichOf(abs);
    }
  }
  const std::string digest = ContentDigest({read->source});
  const Certifying certifying{program, model, abs, digest, deadlock};
  Described out;
  const auto at_end = [&](const Outcome& done, const Run& run) {
    const bool certify = !o.certificate.empty() && done.result.verdict == Verdict::kSafe;
    std::string note;
    const std::string text = certify ? Certify(comm, run, done, certifying, &note) : "";
    if (comm.rank() != 0 || !verify) return;
    if (!o.dump_abstract.empty()) DumpAbstract(o.dump_abstract, done, abs, *run.abstract_union());
    if (certify && note.empty()) WriteFileAtomically(o.certificate, text);
    out.certificate_note = note;
  };
  out.outcome = Execute(comm, model, property, o, limits, at_end);
  out.threads = n;
  out.subject = fmt::format("{} threads", n);
  if (verify) {
    out.subject += chosen.block != nullptr
                       ? fmt::format(", abstraction {}", chosen.block->name)
                       : std::string(", every thread's location as the abstraction");
  }
  DescribeViolation(predabs::DrbDescriber{program, model, abs}, out);
  out.trace_header = {{"digest", digest}};  // as druba's (predabs/verify.cc)
  return out;
}

}  // namespace druba::mpi
