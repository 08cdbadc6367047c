// druba-mpi's `.drb` kind. druba's strategy (strategy/strategy.h: refinement, the Horn solver, the
// invariants read off finite instances, every thread count) runs at process 0, and each count's run
// is the distributed one: process 0 sends every process the count and the abstraction as a block
// (CountOrder), and all run it together (RunOneCount). The paper's proof with its closure test
// (and deadlock proof) at process 0 on the union, exhaustion after a failed test, and with
// --upper-bound joint O first, each process asking the solver for its part's successors. `test`
// is the strategy's one run, the concrete search alone (no abstraction). What is
// not distributed: a round does not go on from the search of the round before (druba's
// --reuse-search), a symmetric program's exhaustion does not search one state per orbit
// (--symmetric-search), and the Horn solver and the invariants from finite instances, which rest on
// the solver, run at process 0 alone. A safe verdict's certificate is druba's, byte for byte.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "abstraction/abstraction.h"
#include "common/diagnostics.h"
#include "common/digest.h"
#include "common/files.h"
#include "drb/parser.h"
#include "interp/model.h"
#include "mpi_front/count_run.h"
#include "mpi_front/drb.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/report_words.h"
#include "refine/refine.h"
#include "strategy/certificate.h"
#include "strategy/run_hooks.h"
#include "strategy/strategy.h"
#include "strategy/thread_counts.h"
#include "strategy/verify.h"

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
    exact = predabs::StatesCertify(c.abs, *set, done.states, c.deadlock);
  }
  if (comm.Max(exact ? 1 : 0) != 0) return CertifyExplicit(comm, run, done, c, note);
  if (comm.rank() != 0) return "";
  return predabs::PredicatesCertificate({c.digest, c.model.num_threads(), false, c.deadlock,
                                         std::string(ProofName(done.result.proof)), &c.program,
                                         &c.abs.spec(), set});
}

// The name of the block a count's abstraction travels as (CountOrder).
constexpr const char* kRoundBlock = "druba_mpi_round";

// druba's request for what druba-mpi computes: druba's with --reuse-search off and
// --symmetric-search off, and `check deadlock;` read as druba reads it.
run::RunOptions DrubaOptions(const run::RunOptions& given, const predabs::Program& program) {
  run::RunOptions options = given;
  options.deadlock = given.deadlock || program.check_deadlock;
  options.symmetric_search = false;
  return options;
}

// What process 0 sends every process before a count's run: the count, whether it is a run of
// `--threads N..`, the exact search's share (0 in refinement's later rounds), and the abstraction
// as a block, which every other process parses after the program's text: the same abstraction,
// word for word, as the strategy's at process 0.
struct CountOrder {
  std::uint32_t n = 0;
  bool fixed_count = true;
  double exhaust_share = 0;
  std::string block;

  std::string Text() const {
    return nlohmann::json{
        {"n", n}, {"fixed", fixed_count}, {"exhaust", exhaust_share}, {"block", block}}
        .dump();
  }
  static CountOrder Of(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text);
    return {j.at("n").get<std::uint32_t>(), j.at("fixed").get<bool>(),
            j.at("exhaust").get<double>(), j.at("block").get<std::string>()};
  }
};

// What every count's run needs (the options, the program's text, the limits), and the figures of
// the runs so far (the report's "distributed" section).
struct DrbSession {
  distributed::Comm& comm;
  const Request& request;
  const predabs::DrbOptions& drb;
  const std::string& source;
  const std::string& digest;
  LimitWatch& limits;
  Spread spread;
};

// Each process's first states, at most kConcreteSample in all, gathered at process 0 for
// refinement (none when some process holds an interned big integer: its words are its own).
// Collective.
std::shared_ptr<const std::vector<Word>> GatherSample(const distributed::Comm& comm, const Run& run,
                                                      const predabs::IntModel& model) {
  if (comm.Max(model.values().num_big()) != 0) return nullptr;
  const std::size_t share = predabs::kConcreteSample / static_cast<std::size_t>(comm.size());
  std::vector<std::uint8_t> mine;
  std::size_t taken = 0;
  run.ForEachState([&](StateView s) {
    if (taken++ >= share) return;
    const auto* bytes = reinterpret_cast<const std::uint8_t*>(s.data());
    mine.insert(mine.end(), bytes, bytes + s.size() * sizeof(Word));
  });
  auto sample = std::make_shared<std::vector<Word>>();
  for (const std::vector<std::uint8_t>& part : comm.Gather(mine)) {
    const std::size_t at = sample->size();
    sample->resize(at + part.size() / sizeof(Word));
    std::memcpy(sample->data() + at, part.data(), part.size());
  }
  return sample;
}

// A copy of `set`, for the strategy to keep.
std::shared_ptr<const StateStore> CopyOf(const StateStore& set) {
  auto copy = std::make_shared<StateStore>(set.width());
  for (std::uint32_t id = 0; id < set.size(); ++id) copy->FindOrInsert(set.Get(id));
  return copy;
}

// The property of a count's run, as predabs::DrbHooks sets it up: no thread failed (and with
// deadlock, no state deadlocked), decided on concrete states; `verify` with the abstraction, its
// closure test and deadlock freedom proved over the set at one count, and O first at one count
// with --upper-bound joint and without deadlock. `test` searches the concrete states alone.
Property PropertyOf(predabs::IntModel& model, const PredicateAbstraction& abs,
                    const run::RunOptions& o, bool fixed_count, bool deadlock) {
  Property property;
  property.violates = [&model, deadlock](StateView s) {
    return model.AnyThreadFailed(s) || (deadlock && model.Deadlocked(s));
  };
  if (o.command != run::Command::kVerify) return property;
  property.abstract_width = abs.width();
  property.abstract = [&abs](StateView s, std::span<Word> a) { abs.Abstract(s, a); };
  property.closure = [&abs](const StateStore& set, std::uint64_t* checks) {
    return CheckClosure(abs, set, checks);
  };
  if (deadlock) {
    property.concrete_what = "deadlock freedom";
    if (fixed_count) {
      property.concrete_proof = [&abs](const StateStore& set) { return abs.DeadlockFree(set); };
    }
  } else if (fixed_count && o.upper_bound == run::UpperBound::kJoint) {
    property.sandwich = SandwichOf(abs);
  }
  return property;
}

// A program that chooses values: its exhaustion would prove nothing, and druba knows that.
void RefuseChoices(const predabs::Program& program) {
  if (program.chooses_at.line != 0) {
    throw InputError(program.chooses_at,
                     "druba-mpi does not yet take a program that chooses values (`x := *`): "
                     "run druba");
  }
}

// One count's run at every process (the order from process 0); at process 0, the CountRun the
// strategy reads. Process 0 runs it with the strategy's program and abstraction (`named`), whose
// names (a quantifier's bound thread) the report and the certificate show as druba's do; the
// others parse the order's block after the program's text, which gives the same abstract words.
// Collective.
run::CountRun RunOneCount(DrbSession& session, const CountOrder& order,
                          const predabs::Program* named = nullptr,
                          const predabs::AbstractionSpec* named_spec = nullptr) {
  distributed::Comm& comm = session.comm;
  const run::RunOptions& o = session.request.options;
  const bool verify = o.command == run::Command::kVerify;
  std::optional<predabs::Program> parsed;
  if (named == nullptr) parsed = drb::ParseProgram(session.source + "\n" + order.block, o.model);
  const predabs::Program& program = named != nullptr ? *named : *parsed;
  RefuseChoices(program);
  const predabs::AbstractionSpec& spec =
      named_spec != nullptr ? *named_spec : program.abstractions.back();
  predabs::IntModel model(program, order.n);
  model.SetLimits(&session.limits);
  PredicateAbstraction abs(model, spec, session.drb.solver_timeout_ms);
  abs.SetLimits(&session.limits);
  const bool deadlock = o.deadlock || program.check_deadlock;
  const Property property = PropertyOf(model, abs, o, order.fixed_count, deadlock);
  Request request = session.request;
  request.options.exhaust_share = order.exhaust_share;
  request.search.gather_answer = true;  // the report lists the abstract states, O's too
  run::CountRun out;
  const auto at_end = [&](const Outcome& done, const Run& run) {
    if (!verify) return;
    if (order.fixed_count && !o.certificate.empty() && done.result.verdict == Verdict::kSafe) {
      out.certificate = Certify(comm, run, done, {program, model, abs, session.digest, deadlock},
                                &out.certificate_note);
    }
    const bool may_refine =
        session.drb.refine && (done.result.verdict == Verdict::kUnknown ||
                               (!order.fixed_count && done.result.verdict == Verdict::kSafe));
    predabs::DrbKept kept;
    if (may_refine) kept.concrete_sample = GatherSample(comm, run, model);
    if (comm.rank() != 0) return;
    const StateStore& set = *run.abstract_union();
    kept.abstract_set = CopyOf(set);
    out.kept = std::move(kept);
    for (std::uint32_t id = 0; id < set.size(); ++id) {
      out.abstract_states.push_back(abs.Describe(set.Get(id)));
    }
    std::sort(out.abstract_states.begin(), out.abstract_states.end());
    out.closure_break =
        run::BreakOf(predabs::DrbDescriber{program, model, abs}, abs, done.result.closure_failure);
    if (out.closure_break) out.closure_breaks = predabs::ClosureBreaks(abs, set, 20);
  };
  const Outcome done =
      Execute(comm, model, property, request, session.limits, session.spread, at_end);
  const predabs::SolverStats& mine = abs.solver_stats();
  const std::uint64_t queries = comm.Sum(mine.queries);
  const double seconds =
      static_cast<double>(comm.Sum(static_cast<std::uint64_t>(mine.seconds * 1e6))) / 1e6;
  if (comm.rank() != 0) return {};
  SetFigures(done, model.num_threads(), out);
  out.relation = "all-SAT";
  out.num_abstract = out.abstract_states.size();
  if (verify) predabs::ListActions(abs, out);
  DescribeViolation(predabs::DrbDescriber{program, model, abs}, done.trace, out);
  out.solver = run::SolverFigures{queries, seconds};
  return out;
}

// The options of druba's command line the distributed run takes (docs/distributed.md).
constexpr std::string_view kDrbTestOptions[] = {
    "--json",     "--json-out",   "--trace-out",  "--trace-svg",    "--schedule-svg",
    "--deadlock", "--progress",   "--time-limit", "--memory-limit", "--rounds",
    "--delays",   "--max-delays", "--threads"};
constexpr std::string_view kDrbVerifyOptions[] = {
    "--json",           "--json-out",    "--trace-out",     "--trace-svg",    "--schedule-svg",
    "--deadlock",       "--progress",    "--time-limit",    "--memory-limit", "--exhaust-share",
    "--upper-bound",    "--certificate", "--dump-abstract", "--threads",      "--abstraction",
    "--solver-timeout", "--refine",      "--horn",          "--max-threads"};

}  // namespace

std::span<const std::string_view> DrbKind::Takes(run::Command command) const {
  if (command == run::Command::kVerify) return kDrbVerifyOptions;
  return kDrbTestOptions;
}

// druba's strategy at process 0, each count's run at every process.
run::Outcome DrbKind::Run(distributed::Comm& comm, const Request& request, LimitWatch& limits) {
  const std::string& path = request.options.model;
  std::string source;
  std::string error;
  try {
    source = ReadFile(path);
    drb::ParseProgram(source, path);
  } catch (const InputError& e) {
    error = e.what();
  }
  AgreeRead(comm, error);
  const std::string digest = ContentDigest({source});
  predabs::DrbOptions drb = front_.options();
  drb.reuse_searches = false;
  DrbSession session{comm, request, drb, source, digest, limits, {}};
  if (comm.rank() != 0) {  // runs the counts process 0 orders until it says it is done
    for (;;) {
      const nlohmann::json order = nlohmann::json::parse(comm.BroadcastIdle("", 0));
      if (order.contains("done")) {
        error = order.at("error").get<std::string>();
        break;
      }
      RunOneCount(session, CountOrder::Of(order.at("count").get<std::string>()));
    }
    if (!error.empty()) throw ReadFailed{error};
    session.spread.Section(comm);  // its memory figures
    return {};
  }
  const predabs::Program program = drb::ParseProgram(source, path);
  const run::RunOptions options = DrubaOptions(request.options, program);
  const predabs::DrbRequest asked{options, drb, source, digest};
  predabs::StrategyHooks hooks;
  hooks.run_count = [&](const predabs::DrbRequest& strategy, const predabs::Program& p,
                        const predabs::AbstractionSpec& spec, std::uint32_t n, bool fixed_count) {
    const CountOrder order{n, fixed_count, strategy.options.exhaust_share,
                           predabs::AbstractionBlock(p, spec, kRoundBlock)};
    comm.BroadcastIdle(nlohmann::json{{"count", order.Text()}}.dump(), 0);
    return RunOneCount(session, order, &p, &spec);
  };
  std::optional<run::Report> report;
  try {
    report = predabs::VerifyReport(asked, program, limits, hooks);
  } catch (const InputError& e) {
    error = e.what();
  }
  comm.BroadcastIdle(nlohmann::json{{"done", true}, {"error", error}}.dump(), 0);
  if (!error.empty()) throw ReadFailed{error};
  report->sections.push_back(session.spread.Section(comm));
  return {run::Outcome::Kind::kReport, std::move(report), "", {}};
}

}  // namespace druba::mpi
