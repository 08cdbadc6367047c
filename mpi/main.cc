// druba-mpi: druba's searches spread over the processes of an MPI run (docs/distributed.md):
// `test` to fixed bounds, and for CPDS `verify` by the sandwich proof where druba computes O first
// and by the paper's proof (distributed/run.h). Each process reads the model; the states are
// shared out by hash (distributed/search.h, upper_bound.h, orbit_search.h) and process 0 prints
// the report. Every process ends with the exit code, druba's (cli/exit_codes.h), once the report
// is out: mpirun, which stops the run at the first process that ends with a code other than 0,
// then returns it.
//
//   mpirun -np 4 druba-mpi test MODEL.pds|MODEL.drb --rounds R --delays D [--json]
//   mpirun -np 4 druba-mpi verify MODEL.pds [--top K] [--upper-bound off] [--json]
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "abstraction/abstraction.h"
#include "cli/exit_codes.h"
#include "common/diagnostics.h"
#include "common/digest.h"
#include "common/files.h"
#include "cpds/describer.h"
#include "cpds/model.h"
#include "cpds/run_hooks.h"
#include "cpds/top_k.h"
#include "distributed/run.h"
#include "drb/parser.h"
#include "explore/portable.h"
#include "front/cpds.h"
#include "predabs/describer.h"
#include "predabs/model.h"
#include "predabs/thread_counts.h"
#include "run/report.h"
#include "run/run_count.h"

namespace druba::mpi {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int /*signal*/) {
  g_interrupted.store(true);
}

using distributed::Outcome;
using distributed::Property;

struct Options {
  std::string command;  // "test" or "verify"
  std::string model;
  distributed::Request request;
  cpds::CpdsOptions cpds;
  std::string threads;  // .drb: N (empty: the file's count)
  bool deadlock = false;
  bool json = false;
  std::string trace_out;
  std::string certificate;           // verify: where a safe verdict's certificate goes
  std::string dump_abstract;         // .pds: where the reached abstract states go
  std::string upper_bound = "auto";  // verify: the sandwich proof's O (auto, joint, static, off)
  bool symmetric_search = true;      // verify: its search over orbits
  bool progress = false;
  double time_limit_s = 0;
  double memory_limit_mb = 0;
};

// The model could not be read (at some process): the message, the same at every process.
struct ReadFailed {
  std::string message;
};

struct Described {
  Outcome outcome;
  std::uint32_t threads = 0;
  std::string subject;
  std::string property;               // which property the violation violates
  std::vector<run::TraceLine> trace;  // its run, in the kind's words
  nlohmann::json trace_header;        // the kind's fields of a --trace-out file
};

// A violation's run in the kind's words (at process 0), and which property it violates.
template <run::Describer D>
void DescribeViolation(const D& kind, Described& out) {
  const std::vector<TraceStep>& steps = out.outcome.trace;
  if (steps.empty()) return;
  out.property = kind.PropertyOf(StateView(steps.back().state));
  out.outcome.result.reason = "a reachable state violates the property: " + out.property;
  out.trace = run::DescribeTrace(kind, steps);
}

// The run; then at every process, `at_end` with the outcome and the run.
template <DistributableModel Model, class AtEnd>
Outcome Execute(distributed::Comm& comm, Model& model, const Property& property, const Options& o,
                LimitWatch& limits, AtEnd&& at_end) {
  distributed::Run<Model> run(comm, model, property, o.request, limits);
  Outcome out = o.command == "verify" ? run.Verify() : run.Test();
  at_end(out, run);
  return out;
}

// After exhaustion, druba's certificate (cpds::CpdsHooks::Certify): the union when it is closed
// under every action (then `out` stays empty, and process 0 writes the union); otherwise the
// reachable states under the top-k abstraction with k one more than the deepest stack, exact on
// them (CpdsHooks::CertifyExact), read off every process's states and gathered at process 0.
// Collective.
void CertifyExhausted(const distributed::Comm& comm, const distributed::Run<cpds::CpdsModel>& run,
                      const cpds::CpdsHooks& hooks, run::CountRun& out) {
  std::uint64_t checks = 0;
  const bool open = comm.rank() == 0 && CheckClosure(hooks.abs, *run.abstract_union(), &checks,
                                                     /*all_actions=*/true);
  if (comm.Max(open ? 1 : 0) == 0) return;
  constexpr std::uint32_t kMaxDepth = cpds::CpdsHooks::kMaxExactDepth;
  std::uint64_t k = 1;
  run.ForEachState([&](StateView s) {
    for (std::uint32_t t = 0; t < hooks.model.num_threads(); ++t) {
      k = std::max<std::uint64_t>(k, hooks.model.stacks().DepthUpTo(s[1 + t], kMaxDepth) + 1);
    }
  });
  k = comm.Max(k);
  if (k > kMaxDepth) {
    out.certificate_note = fmt::format(
        "the exact abstract set the exhaustive search found is not closed under the abstract "
        "post, and a reachable stack is deeper than {} symbols",
        kMaxDepth - 1);
    return;
  }
  const cpds::TopKAbstraction deep(hooks.model, static_cast<std::uint32_t>(k), std::nullopt);
  StateStore mine(deep.width());
  std::vector<Word> a(deep.width());
  run.ForEachState([&](StateView s) {
    deep.Abstract(s, std::span<Word>(a));
    mine.FindOrInsert(StateView(a));
  });
  StateStore exact(deep.width());
  distributed::GatherStates(comm, mine, 0, exact);
  if (comm.rank() != 0) return;
  hooks.Write(out, exact, static_cast<std::uint32_t>(k));
}

// Every process reads the model for itself. When one cannot, every process stops with the first
// one's message (process 0 prints it), so that none waits for the others in a collective.
void AgreeRead(const distributed::Comm& comm, const std::string& error) {
  const auto none = static_cast<std::uint64_t>(comm.size());
  const std::uint64_t first =
      comm.Min(error.empty() ? none : static_cast<std::uint64_t>(comm.rank()));
  if (first != none) throw ReadFailed{comm.Broadcast(error, static_cast<int>(first))};
}

// The sandwich proof of a top-K abstraction, as druba's (cpds::MakeSandwich): O with pops by the
// may-lie-below relation, relative to O (joint) or to every tuple (static).
distributed::SandwichKind SandwichOf(const cpds::TopKAbstraction& abs, const cpds::Cpds& cpds,
                                     const Options& o, bool has_target) {
  const bool joint = o.upper_bound != "static";
  const SandwichSetup setup = cpds::MakeSandwich(abs, joint, has_target || o.deadlock);
  distributed::SandwichKind kind;
  kind.width = abs.width();
  kind.symmetry = setup.symmetry;
  if (o.symmetric_search) kind.concrete_symmetry = setup.concrete_symmetry;
  kind.has_property = setup.has_property;
  kind.orbit_search_calls = setup.symmetric_head_start;
  kind.violates = [&abs](StateView a) { return abs.Violates(a); };
  kind.facts = [&abs, joint](const StateStore& part) {
    std::vector<std::uint8_t> bytes;
    if (joint) abs.Facts(part).Write(bytes);
    return bytes;
  };
  using Post = distributed::PostOf<cpds::TopKAbstraction::ClosureOracle>;
  kind.oracle = [&abs, &cpds, joint](const std::vector<std::vector<std::uint8_t>>& all)
      -> std::unique_ptr<distributed::AbstractPost> {
    if (!joint) return std::make_unique<Post>(abs.MakeStaticOracle());
    cpds::VisibleFacts facts(cpds);
    for (const std::vector<std::uint8_t>& part : all) {
      if (!facts.Read(part)) throw std::runtime_error("a process sent facts it cannot read");
    }
    return std::make_unique<Post>(abs.MakeOracle(facts));
  };
  return kind;
}

Described RunCpds(distributed::Comm& comm, const Options& o, LimitWatch& limits) {
  std::optional<front::LoadedCpds> read;
  std::string error;
  try {
    read = front::LoadCpds(o.model, o.cpds);
  } catch (const InputError& e) {
    error = e.what();
  }
  AgreeRead(comm, error);
  const front::LoadedCpds& loaded = *read;
  cpds::CpdsModel model(loaded.cpds, loaded.init);
  cpds::TopKAbstraction abs(model, o.cpds.top, loaded.target);
  abs.SetDeadlock(o.deadlock);
  std::vector<Word> scratch(abs.width());
  Property property;
  property.abstract_width = abs.width();
  property.abstract = [&abs](StateView s, std::span<Word> out) { abs.Abstract(s, out); };
  property.violates = [&](StateView s) {
    abs.Abstract(s, scratch);
    return abs.Violates(StateView(scratch));
  };
  Described out;
  property.closure = [&abs](const StateStore& set, std::uint64_t* checks) {
    return CheckClosure(abs, set, checks);
  };
  if (o.upper_bound != "off")
    property.sandwich = SandwichOf(abs, loaded.cpds, o, loaded.target.has_value());
  // A safe verdict's certificate, as druba writes it (the union is the final abstract set), which
  // `druba check` decides.
  run::RunOptions request;
  request.certificate = o.certificate;
  request.deadlock = o.deadlock;
  const cpds::CpdsHooks hooks{request, o.cpds, loaded.digest,
                              model,   abs,    loaded.target.has_value()};
  const auto at_end = [&](const Outcome& done, const distributed::Run<cpds::CpdsModel>& run) {
    const bool certify = !o.certificate.empty() && done.result.verdict == Verdict::kSafe;
    run::CountRun certified;
    certified.result.proof = done.result.proof;
    if (certify && done.result.proof == Proof::kExhausted) {
      CertifyExhausted(comm, run, hooks, certified);
    }
    if (comm.rank() != 0) return;
    const StateStore* set = run.abstract_union();
    if (!o.dump_abstract.empty()) {  // as druba's --dump-abstract: sorted, what is not exact said
      std::vector<std::string> lines;
      for (std::uint32_t id = 0; id < set->size(); ++id)
        lines.push_back(abs.Describe(set->Get(id)));
      std::sort(lines.begin(), lines.end());
      std::string text =
          run::DumpHeader(done.result.verdict, done.result.reason, done.result.proof);
      for (const std::string& line : lines) text += line + "\n";
      WriteFileAtomically(o.dump_abstract, text);
    }
    if (!certify) return;
    if (!certified.certificate_note.empty()) {
      std::fprintf(stderr, "druba-mpi: no certificate: %s\n", certified.certificate_note.c_str());
      return;
    }
    if (certified.certificate.empty()) hooks.Write(certified, *set, abs.k());
    WriteFileAtomically(o.certificate, certified.certificate);
  };
  out.outcome = Execute(comm, model, property, o, limits, at_end);
  out.threads = model.num_threads();
  out.subject = fmt::format("{} threads, top-{} abstraction{}", model.num_threads(), abs.k(),
                            loaded.target ? ", target " + loaded.target_text : "");
  DescribeViolation(cpds::CpdsDescriber{model, abs}, out);
  // As druba's (front/cpds.cc), which `druba replay` reads.
  out.trace_header = {
      {"target", loaded.target_text}, {"top", o.cpds.top}, {"digest", loaded.digest}};
  return out;
}

Described RunDrb(distributed::Comm& comm, const Options& o, LimitWatch& limits) {
  std::optional<drb::Program> read;
  std::string error;
  std::string source;
  std::uint32_t n = 0;
  try {
    source = ReadFile(o.model);
    read = drb::ParseProgram(source, o.model);
    const predabs::ThreadCounts counts = predabs::ParseThreadCounts(o.threads, *read, 0);
    if (counts.every_count_from_first) {
      throw InputError({"--threads", 0, 0}, "druba-mpi runs one thread count (N, not N..)");
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
  out.outcome = Execute(comm, model, property, o, limits,
                        [](const Outcome&, const distributed::Run<predabs::IntModel>&) {});
  out.threads = n;
  out.subject = fmt::format("{} threads", n);
  // The describer names steps and states; the abstraction (none here) only abstract states.
  const predabs::PredicateAbstraction none(model, drb::AbstractionSpec{}, 0);
  DescribeViolation(predabs::DrbDescriber{program, model, none}, out);
  out.trace_header = {{"digest", ContentDigest({source})}};  // as druba's (predabs/verify.cc)
  return out;
}

// The --trace-out file of a violation, in druba's format (`druba replay` reads it).
std::string TraceFileOf(const Options& o, const Described& d) {
  run::Report report;
  report.options.model = o.model;
  report.trace_header = d.trace_header;
  report.trace_header["rounds"] = d.trace.back().rounds;
  report.trace_header["delays"] = d.trace.back().delays;
  run::CountRun run;
  run.threads = d.threads;
  run.property = d.property;
  run.trace = d.trace;
  report.runs.push_back(std::move(run));
  return run::TraceFile(report);
}

void Print(const Options& o, const distributed::Comm& comm, const Described& d) {
  const Outcome& r = d.outcome;
  const RunResult& v = r.result;
  if (o.json) {
    nlohmann::json j = {{"verdict", std::string(VerdictName(v.verdict))},
                        {"reason", v.reason},
                        {"proof", std::string(ProofName(v.proof))},
                        {"command", o.command},
                        {"model", o.model},
                        {"processes", comm.size()},
                        {"threads", d.threads},
                        {"rounds", v.bounds.rounds},
                        {"delays", v.bounds.delays},
                        {"concrete_states", r.states},
                        {"keys", r.keys},
                        {"pareto_pairs", r.pairs},
                        {"image_calls", v.image_calls},
                        {"closure_checks", v.closure_checks},
                        {"transitions", r.transitions},
                        {"bytes_sent", r.bytes_sent},
                        {"states_sent", r.states_sent},
                        {"messages", r.messages},
                        {"exchanges", r.exchanges},
                        {"states_by_process", r.states_by_process},
                        {"peak_rss_mb_by_process", r.peak_rss_mb_by_process},
                        {"time_s", v.time_s}};
    j["abstract_states"] = r.abstract_states ? nlohmann::json(*r.abstract_states) : nullptr;
    if (v.upper_bound) {  // as druba's report
      j["upper_bound"] = *v.upper_bound;
      j["upper_bound_passes"] = v.upper_bound_stats.passes;
      j["upper_bound_successors"] = v.upper_bound_stats.successors;
      j["upper_bound_time_s"] = v.upper_bound_stats.time_s;
      j["symmetric_reached"] = v.symmetric_reached;
      j["symmetric_search_states"] = v.symmetric_search_states;
      j["symmetric_search_calls"] = v.symmetric_search_calls;
    }
    if (!v.upper_bound_note.empty()) j["upper_bound_note"] = v.upper_bound_note;
    if (!d.trace.empty()) {
      j["property"] = d.property;
      j["trace"] = nlohmann::json::parse(TraceFileOf(o, d))["steps"];
    }
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("druba-mpi {} {}: {} processes, {}\n", o.command, o.model, comm.size(), d.subject);
  fmt::print("verdict: {} ({})\n", VerdictName(v.verdict), v.reason);
  fmt::print("bounds at the end: {} round{}, {} delay{}\n", v.bounds.rounds,
             v.bounds.rounds == 1 ? "" : "s", v.bounds.delays, v.bounds.delays == 1 ? "" : "s");
  if (!d.trace.empty()) {
    fmt::print("trace: {} slots, walked back across the processes\n{}", d.trace.size(),
               run::TraceText(d.trace));
  }
  fmt::print("states: {} (per process: {}), keys: {}, Pareto pairs: {}", r.states,
             fmt::join(r.states_by_process, " "), r.keys, r.pairs);
  if (r.abstract_states) fmt::print(", abstract states: {}", *r.abstract_states);
  double rss = 0;
  for (const double mb : r.peak_rss_mb_by_process) rss += mb;
  if (v.upper_bound) {
    fmt::print("\nupper bound O: {} abstract states, {} passes, {} abstract successors, {:.2f} s",
               *v.upper_bound, v.upper_bound_stats.passes, v.upper_bound_stats.successors,
               v.upper_bound_stats.time_s);
  }
  if (v.symmetric_search_calls > 0) {
    fmt::print("\nsearch over orbits: {} states, {} successor calls, Sym(U) {} abstract states",
               v.symmetric_search_states, v.symmetric_search_calls, v.symmetric_reached);
  }
  if (!v.upper_bound_note.empty()) fmt::print("\nupper bound: {}", v.upper_bound_note);
  fmt::print("\nsent: {} states, {} bytes, in {} messages over {} exchanges\n", r.states_sent,
             r.bytes_sent, r.messages, r.exchanges);
  fmt::print("time: {:.2f} s; peak memory per process: {:.1f} MB (sum {:.1f} MB)\n", v.time_s,
             fmt::join(r.peak_rss_mb_by_process, " "), rss);
}

// The options of `command`: those of `druba test` and `druba verify` that the distributed search
// has, and its own (--batch-bytes, --stepwise).
void AddOptions(CLI::App& app, const std::string& command, const std::string& what, Options& o) {
  CLI::App* sub = app.add_subcommand(command, what);
  sub->callback([&o, command] { o.command = command; });
  const bool test = command == "test";
  sub->add_option("model", o.model, test ? "a .pds or .drb model" : "a .pds model")->required();
  if (test) {
    sub->add_option("--rounds", o.request.bounds.rounds, "round bound (default 0)");
    sub->add_option("--delays", o.request.bounds.delays, "delay bound (default 0)");
    sub->add_flag("--stepwise", o.request.stepwise,
                  "reach the bounds one raise at a time, as verify does");
    sub->add_option("--threads", o.threads, ".drb: the thread count (default: the file's)");
  }
  sub->add_option("--batch-bytes", o.request.batch_bytes,
                  "bytes of successors a process queues before an exchange (default 4 MiB)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--top", o.cpds.top, ".pds: K, the top symbols of each stack kept")
      ->check(CLI::Range(1, 64));
  sub->add_option("--init", o.cpds.init, ".pds: the initial state file");
  sub->add_option("--target", o.cpds.target, ".pds: a target visible state");
  sub->add_option("--spec", o.cpds.spec, ".pds: a .spec file naming a target");
  sub->add_flag("--deadlock", o.deadlock, "a deadlocked state violates too");
  sub->add_flag("--json", o.json, "the report as one JSON object");
  sub->add_option("--trace-out", o.trace_out,
                  "a violation's run, in the format `druba replay` reads");
  if (!test) {
    sub->add_option("--certificate", o.certificate,
                    "a safe verdict's certificate, which `druba check` decides");
    sub->add_option("--exhaust-share", o.request.exhaust_share,
                    "after a failed closure test, the exact search goes on towards exhaustion "
                    "for at most this many times the successor calls spent before the test, "
                    "counted as at least 262,144 (default 4; 0: the paper's proof alone)")
        ->check(CLI::NonNegativeNumber);
    sub->add_option("--upper-bound", o.upper_bound,
                    "the sandwich proof's O, computed first where druba computes it first (a "
                    "target or --deadlock, or interchangeable threads): auto and joint (pops by "
                    "the may-lie-below relation computed with O), static, or off (the paper's "
                    "proof alone)")
        ->check(CLI::IsMember({"auto", "joint", "static", "off"}));
    sub->add_option_function<std::string>(
           "--symmetric-search",
           [&o](const std::string& value) { o.symmetric_search = value == "on"; },
           "with interchangeable threads, the lower bound by a search over one state per orbit "
           "(on, the default; its first 4M successor calls, as druba's), or not (off)")
        ->check(CLI::IsMember({"on", "off"}));
  }
  sub->add_option("--dump-abstract", o.dump_abstract,
                  ".pds: the reached abstract states, one per line, sorted (as druba's)");
  sub->add_flag("--progress", o.progress,
                "a line on standard error every 2 s: the bounds, each process's states and memory");
  sub->add_option("--time-limit", o.time_limit_s, "seconds; then the verdict is unknown");
  sub->add_option("--memory-limit", o.memory_limit_mb, "MB per process; then unknown");
}

int Main(int argc, char** argv) {
  distributed::Comm comm;
  Options o;
  CLI::App app{"druba-mpi: druba's Round-Robin search over the processes of an MPI run"};
  app.require_subcommand(1);
  AddOptions(app, "test",
             "R(rounds, delays): the states reached, by hash over the processes, and any violation",
             o);
  AddOptions(app, "verify",
             "the sandwich proof where druba computes O first (a target, or interchangeable "
             "threads), else the paper's proof (plateaus and the closure test, then exhaustion "
             "if the test fails), or a violation: as druba verify",
             o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = comm.rank() == 0 ? app.exit(e) : e.get_exit_code();
    comm.Max(0);
    return code == 0 ? 0 : exit_code::kUsage;
  }
  if (o.progress) {
    o.request.progress_interval_s = 2;
    o.request.progress = [clock = Stopwatch()](Bounds b, const std::vector<std::uint64_t>& states,
                                               const std::vector<double>& memory_mb) {
      std::uint64_t all = 0;
      for (const std::uint64_t count : states) all += count;
      std::fprintf(stderr, "%s\n",
                   fmt::format("druba-mpi: {:6.1f} s  r={} d={}  {} states (per process: {})  "
                               "memory per process: {:.0f} MB",
                               clock.Seconds(), b.rounds, b.delays, all, fmt::join(states, " "),
                               fmt::join(memory_mb, " "))
                       .c_str());
    };
  }
  o.request.gather_answer = !o.certificate.empty() || !o.dump_abstract.empty();
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  LimitWatch limits({o.time_limit_s, o.memory_limit_mb}, &g_interrupted);
  const std::string& model = o.model;
  const bool pds = model.ends_with(".pds");
  // An option of the other kind is refused, never ignored.
  const CLI::App& sub = *app.get_subcommand(o.command);
  std::string misplaced;
  for (const char* name : {"--top", "--init", "--target", "--spec", "--dump-abstract"}) {
    if (!pds && sub.count(name) > 0) misplaced = name;
  }
  if (pds && o.command == "test" && sub.count("--threads") > 0) misplaced = "--threads";
  if (!misplaced.empty()) {
    if (comm.rank() == 0) {
      std::fprintf(stderr, "druba-mpi: %s is for %s models\n", misplaced.c_str(),
                   pds ? ".drb" : ".pds");
    }
    comm.Max(0);
    return exit_code::kUsage;
  }
  if (!pds && (o.command == "verify" || !model.ends_with(".drb"))) {
    if (comm.rank() == 0) {
      std::fprintf(stderr, "%s: error: %s\n", model.c_str(),
                   o.command == "verify" ? "druba-mpi verify takes a .pds model (.drb: test)"
                                         : "not a .pds or .drb model");
    }
    comm.Max(0);
    return exit_code::kInput;
  }
  try {
    const Described d = pds ? RunCpds(comm, o, limits) : RunDrb(comm, o, limits);
    if (comm.rank() == 0) {
      Print(o, comm, d);
      if (!o.trace_out.empty() && !d.trace.empty()) {
        WriteFileAtomically(o.trace_out, TraceFileOf(o, d));
      }
      std::fflush(stdout);
    }
    comm.Max(0);  // every process ends after the report is out
    return ExitCodeFor(d.outcome.result.verdict);
  } catch (const ReadFailed& e) {
    if (comm.rank() == 0) std::fprintf(stderr, "%s\n", e.message.c_str());
    comm.Max(0);
    return exit_code::kInput;
  }
}

}  // namespace
}  // namespace druba::mpi

int main(int argc, char** argv) {
  druba::distributed::Session session(&argc, &argv);
  // A process that fails here has left its collectives: it ends every process of the run, which
  // has no verdict.
  try {
    return druba::mpi::Main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "druba-mpi: internal error: %s\n", e.what());
    druba::distributed::Session::Abort(druba::exit_code::kInternal);
  }
}
