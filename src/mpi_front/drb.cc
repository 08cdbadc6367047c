// druba-mpi's `.drb` front end. `test`: the concrete search alone, at one thread count. `verify`:
// druba's strategy (strategy/strategy.h: refinement, the Horn solver, the invariants read off
// finite instances, every thread count) runs at process 0, and each count's run is the
// distributed one: process 0 sends every process the count and the abstraction as a block
// (CountOrder), and all run it together (RunOneCount). The paper's proof with its closure test
// (and deadlock proof) at process 0 on the union, exhaustion after a failed test, and with
// --upper-bound joint O first, each process asking the solver for its part's successors. What is
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
#include "mpi_front/front.h"
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

// druba's request for what druba-mpi computes: druba verify with --reuse-search off and
// --symmetric-search off (and the options druba-mpi has).
run::RunOptions DrubaOptions(const Options& o, const predabs::Program& program) {
  run::RunOptions options;
  options.model = o.model;
  options.json = o.json;
  options.command = run::Command::kVerify;
  options.deadlock = o.deadlock || program.check_deadlock;  // `check deadlock;`, as druba's
  options.certificate = o.certificate;
  options.dump_abstract = o.dump_abstract;
  options.trace_out = o.trace_out;
  options.time_limit_s = o.time_limit_s;
  options.memory_limit_mb = o.memory_limit_mb;
  options.exhaust_share = o.request.exhaust_share;
  options.upper_bound = o.upper_bound;  // static is refused for .drb (mpi/main.cc)
  options.symmetric_search = false;
  return options;
}

predabs::DrbOptions DrbOptionsOf(const Options& o) {
  predabs::DrbOptions drb;
  drb.threads = o.threads;
  drb.abstraction = o.abstraction;
  drb.solver_timeout_ms = o.solver_timeout_ms;
  drb.max_threads = o.max_threads;
  drb.refine = o.refine;
  drb.horn = o.horn;
  drb.reuse_searches = false;
  return drb;
}

// What the distributed runs of a verify sent, summed over its counts and rounds.
struct Spread {
  std::uint32_t runs = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t states_sent = 0;
  std::uint64_t messages = 0;
  std::uint64_t exchanges = 0;

  void Add(const Outcome& done) {
    ++runs;
    bytes_sent += done.bytes_sent;
    states_sent += done.states_sent;
    messages += done.messages;
    exchanges += done.exchanges;
  }
  // The report's section, with each process's peak memory (at process 0). Collective.
  run::Section Section(const distributed::Comm& comm) const {
    std::vector<std::uint64_t> unused;
    std::vector<double> peak_mb;
    distributed::GatherFigures(comm, 0, /*peak=*/true, unused, peak_mb);
    double sum = 0;
    for (const double mb : peak_mb) sum += mb;
    return {
        "distributed",
        {{"processes", comm.size()},
         {"runs", runs},
         {"states_sent", states_sent},
         {"bytes_sent", bytes_sent},
         {"messages", messages},
         {"exchanges", exchanges},
         {"peak_rss_mb_by_process", peak_mb}},
        fmt::format("  distributed over {} processes, {} run{}: sent {} states, {} bytes, in {} "
                    "messages over {} exchanges; peak memory per process: {:.1f} MB (sum "
                    "{:.1f} MB)\n",
                    comm.size(), runs, runs == 1 ? "" : "s", states_sent, bytes_sent, messages,
                    exchanges, fmt::join(peak_mb, " "), sum),
        run::Section::Place::kDetail};
  }
};

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
  const Options& o;
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

// At process 0: the run as druba's run::RunCount and predabs::DrbHooks::Finish report it (the
// trace as found: druba's search for a shorter one is its own).
run::CountRun Describe(const Outcome& done, const Run& run, const predabs::Program& program,
                       predabs::IntModel& model, PredicateAbstraction& abs) {
  run::CountRun out;
  out.threads = model.num_threads();
  out.result = done.result;
  out.concrete_states = done.states;
  out.keys = done.keys;
  out.pareto_pairs = done.pairs;
  out.stats.image_calls = done.result.image_calls;
  out.stats.transitions = done.transitions;
  out.relation = "all-SAT";
  const StateStore& set = *run.abstract_union();
  out.num_abstract = set.size();
  for (std::uint32_t id = 0; id < set.size(); ++id) {
    out.abstract_states.push_back(abs.Describe(set.Get(id)));
  }
  std::sort(out.abstract_states.begin(), out.abstract_states.end());
  const predabs::DrbDescriber kind{program, model, abs};
  out.closure_break = run::BreakOf(kind, abs, out.result.closure_failure);
  if (out.closure_break) out.closure_breaks = predabs::ClosureBreaks(abs, set, 20);
  predabs::ListActions(abs, out);
  if (!done.trace.empty()) {
    out.property = kind.PropertyOf(StateView(done.trace.back().state));
    out.trace = run::DescribeTrace(kind, done.trace);
    if (out.property == "deadlock") {
      out.result.reason =
          "a reachable state is deadlocked: no thread can move and some thread has not finished";
    }
  }
  return out;
}

// A copy of `set`, for the strategy to keep.
std::shared_ptr<const StateStore> CopyOf(const StateStore& set) {
  auto copy = std::make_shared<StateStore>(set.width());
  for (std::uint32_t id = 0; id < set.size(); ++id) copy->FindOrInsert(set.Get(id));
  return copy;
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
  const Options& o = session.o;
  std::optional<predabs::Program> parsed;
  if (named == nullptr) parsed = drb::ParseProgram(session.source + "\n" + order.block, o.model);
  const predabs::Program& program = named != nullptr ? *named : *parsed;
  const predabs::AbstractionSpec& spec =
      named_spec != nullptr ? *named_spec : program.abstractions.back();
  predabs::IntModel model(program, order.n);
  model.SetLimits(&session.limits);
  PredicateAbstraction abs(model, spec, o.solver_timeout_ms);
  abs.SetLimits(&session.limits);
  const bool deadlock = o.deadlock || program.check_deadlock;
  Property property;
  property.violates = [&](StateView s) {
    return model.AnyThreadFailed(s) || (deadlock && model.Deadlocked(s));
  };
  property.abstract_width = abs.width();
  property.abstract = [&abs](StateView s, std::span<Word> a) { abs.Abstract(s, a); };
  property.closure = [&abs](const StateStore& set, std::uint64_t* checks) {
    return CheckClosure(abs, set, checks);
  };
  // As predabs::DrbHooks: deadlock decided on concrete states, proved over the set at one count;
  // O first at one count, with --upper-bound joint and without deadlock.
  if (deadlock) {
    property.concrete_what = "deadlock freedom";
    if (order.fixed_count) {
      property.concrete_proof = [&abs](const StateStore& set) { return abs.DeadlockFree(set); };
    }
  } else if (order.fixed_count && o.upper_bound == run::UpperBound::kJoint) {
    property.sandwich = SandwichOf(abs);
  }
  distributed::Request request = o.request;
  request.exhaust_share = order.exhaust_share;
  request.gather_answer = true;  // the report lists the abstract states, O's too
  Run run(comm, model, property, request, session.limits);
  const Outcome done = run.Verify();
  session.spread.Add(done);
  std::string note;
  std::string certificate;
  if (order.fixed_count && !o.certificate.empty() && done.result.verdict == Verdict::kSafe) {
    certificate = Certify(comm, run, done, {program, model, abs, session.digest, deadlock}, &note);
  }
  const bool may_refine =
      o.refine && (done.result.verdict == Verdict::kUnknown ||
                   (!order.fixed_count && done.result.verdict == Verdict::kSafe));
  std::shared_ptr<const std::vector<Word>> sample;
  if (may_refine) sample = GatherSample(comm, run, model);
  const predabs::SolverStats& mine = abs.solver_stats();
  const std::uint64_t queries = comm.Sum(mine.queries);
  const double seconds =
      static_cast<double>(comm.Sum(static_cast<std::uint64_t>(mine.seconds * 1e6))) / 1e6;
  if (comm.rank() != 0) return {};
  run::CountRun out = Describe(done, run, program, model, abs);
  out.solver = run::SolverFigures{queries, seconds};
  out.certificate = std::move(certificate);
  out.certificate_note = std::move(note);
  predabs::DrbKept kept;
  kept.abstract_set = CopyOf(*run.abstract_union());
  kept.concrete_sample = std::move(sample);
  out.kept = std::move(kept);
  return out;
}

// `verify`: druba's strategy at process 0, each count's run at every process.
Described VerifyDrb(distributed::Comm& comm, const Options& o, LimitWatch& limits) {
  std::string source;
  std::string error;
  try {
    source = ReadFile(o.model);
    drb::ParseProgram(source, o.model);
  } catch (const InputError& e) {
    error = e.what();
  }
  AgreeRead(comm, error);
  const std::string digest = ContentDigest({source});
  DrbSession session{comm, o, source, digest, limits, {}};
  Described out;
  if (comm.rank() != 0) {  // runs the counts process 0 orders until it says it is done
    for (;;) {
      const nlohmann::json order = nlohmann::json::parse(comm.BroadcastIdle("", 0));
      if (order.contains("done")) {
        error = order.at("error").get<std::string>();
        out.outcome.result.verdict = static_cast<Verdict>(order.at("verdict").get<int>());
        break;
      }
      RunOneCount(session, CountOrder::Of(order.at("count").get<std::string>()));
    }
    if (error.empty()) session.spread.Section(comm);  // its memory figures
    if (!error.empty()) throw ReadFailed{error};
    return out;
  }
  const predabs::Program program = drb::ParseProgram(source, o.model);
  const run::RunOptions options = DrubaOptions(o, program);
  const predabs::DrbRequest request{options, DrbOptionsOf(o), source, digest};
  predabs::StrategyHooks hooks;
  hooks.run_count = [&](const predabs::DrbRequest& asked, const predabs::Program& p,
                        const predabs::AbstractionSpec& spec, std::uint32_t n, bool fixed_count) {
    const CountOrder order{n, fixed_count, asked.options.exhaust_share,
                           predabs::AbstractionBlock(p, spec, kRoundBlock)};
    comm.BroadcastIdle(nlohmann::json{{"count", order.Text()}}.dump(), 0);
    return RunOneCount(session, order, &p, &spec);
  };
  std::optional<run::Report> report;
  try {
    report = predabs::VerifyReport(request, program, limits, hooks);
  } catch (const InputError& e) {
    error = e.what();
  }
  const Verdict verdict = report ? report->verdict : Verdict::kUnknown;
  comm.BroadcastIdle(
      nlohmann::json{{"done", true}, {"error", error}, {"verdict", static_cast<int>(verdict)}}
          .dump(),
      0);
  if (!error.empty()) throw ReadFailed{error};
  out.outcome.result.verdict = verdict;
  report->sections.push_back(session.spread.Section(comm));
  out.report = std::move(report);
  return out;
}

// `test`: the concrete search at one thread count, no abstraction.
Described TestDrb(distributed::Comm& comm, const Options& o, LimitWatch& limits) {
  std::string source;
  std::optional<drb::Program> read;
  std::uint32_t n = 0;
  std::string error;
  try {
    source = ReadFile(o.model);
    read = drb::ParseProgram(source, o.model);
    const predabs::ThreadCounts counts = predabs::ParseThreadCounts(o.threads, *read, 0);
    if (counts.every_count_from_first) {
      throw InputError({"--threads", 0, 0}, "druba-mpi test runs one thread count (N, not N..)");
    }
    n = counts.first;
  } catch (const InputError& e) {
    error = e.what();
  }
  AgreeRead(comm, error);
  const drb::Program& program = *read;
  predabs::IntModel model(program, n);
  model.SetLimits(&limits);
  const bool deadlock = o.deadlock || program.check_deadlock;
  Property property;
  property.violates = [&](StateView s) {
    return model.AnyThreadFailed(s) || (deadlock && model.Deadlocked(s));
  };
  Described out;
  out.outcome = Execute(comm, model, property, o, limits, [](const Outcome&, const Run&) {});
  out.threads = n;
  out.subject = fmt::format("{} threads", n);
  // The describer names steps and states; the abstraction (an empty one) only abstract states.
  const PredicateAbstraction none(model, drb::AbstractionSpec{}, 0);
  DescribeViolation(predabs::DrbDescriber{program, model, none}, out);
  out.trace_header = {{"digest", ContentDigest({source})}};  // as druba's (strategy/verify.cc)
  return out;
}

}  // namespace

Described RunDrb(distributed::Comm& comm, const Options& o, LimitWatch& limits) {
  return o.command == run::Command::kVerify ? VerifyDrb(comm, o, limits) : TestDrb(comm, o, limits);
}

}  // namespace druba::mpi
