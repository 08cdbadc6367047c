// druba-mpi: druba's searches spread over the processes of an MPI run (docs/distributed.md):
// `test` to fixed bounds, and `verify` by the sandwich proof where druba computes O first and by
// the paper's proof (distributed/run.h), for CPDS, and for `.drb` programs as druba's strategy
// directs them (src/mpi_front: cpds.cc, drb.cc). Each process reads the model; the states are
// shared out by hash (distributed/search.h, upper_bound.h, orbit_search.h) and process 0 prints
// the report. Every process ends with the exit code, druba's (cli/exit_codes.h), once the report
// is out: mpirun, which stops the run at the first process that ends with a code other than 0,
// then returns it.
//
//   mpirun -np 4 druba-mpi test MODEL.pds|MODEL.drb --rounds R --delays D [--json]
//   mpirun -np 4 druba-mpi verify MODEL.pds|MODEL.drb [--top K] [--threads N|N..] [--json]
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/exit_codes.h"
#include "common/diagnostics.h"
#include "common/files.h"
#include "distributed/comm.h"
#include "front/options.h"
#include "mpi_front/front.h"
#include "run/report.h"

namespace druba::mpi {
namespace {

using distributed::Outcome;

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int /*signal*/) {
  g_interrupted.store(true);
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
                        {"command", std::string(run::CommandName(o.command))},
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
  fmt::print("druba-mpi {} {}: {} processes, {}\n", run::CommandName(o.command), o.model,
             comm.size(), d.subject);
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

// At process 0: the output files, the report, and then what could not be written (as druba's:
// the verdict is printed all the same, and the exit code is 2).
void Deliver(const Options& o, const distributed::Comm& comm, Described& d) {
  try {
    if (d.report) {  // a .drb verify: druba's report
      for (const std::string& warning : run::WriteOutputFiles(*d.report)) {
        std::fprintf(stderr, "%s\n", warning.c_str());
      }
    } else if (!o.trace_out.empty() && !d.trace.empty()) {
      WriteFileAtomically(o.trace_out, TraceFileOf(o, d));
    }
  } catch (const druba::InputError& e) {
    if (d.output_error.empty()) d.output_error = e.what();
  }
  if (d.report) {
    fmt::print("{}", o.json ? run::JsonReport(*d.report) + "\n" : run::TextReport(*d.report));
  } else {
    Print(o, comm, d);
    if (!d.certificate_note.empty()) {
      std::fprintf(stderr, "druba-mpi: no certificate: %s\n", d.certificate_note.c_str());
    }
  }
  std::fflush(stdout);
  if (!d.output_error.empty()) std::fprintf(stderr, "%s\n", d.output_error.c_str());
}

// `test`'s own options: the bounds, and how to reach them.
void AddTestOptions(CLI::App& sub, Options& o) {
  sub.add_option("--rounds", o.request.bounds.rounds, "round bound (default 0)");
  sub.add_option("--delays", o.request.bounds.delays, "delay bound (default 0)");
  sub.add_flag("--stepwise", o.request.stepwise,
               "reach the bounds one raise at a time, as verify does");
}

// `verify`'s options for a .drb model, as druba's.
void AddDrbVerifyOptions(CLI::App& sub, Options& o) {
  sub.add_option("--abstraction", o.abstraction,
                 ".drb: which abstraction block to use (default: the first; without one, "
                 "every thread's location)");
  sub.add_option("--solver-timeout", o.solver_timeout_ms,
                 ".drb: milliseconds per solver query; a timeout makes the verdict 'unknown' "
                 "(default 20000)");
  sub.add_option(
         "--refine", o.refine,
         ".drb: refinement after a round that ended unknown, as druba's (on, the default; off: "
         "the abstraction as given, and no Horn solver)")
      ->check(CLI::IsMember({"on", "off"}));
  const std::map<std::string, predabs::HornUse> uses = {{"both", predabs::HornUse::kBoth},
                                                        {"proof", predabs::HornUse::kProof},
                                                        {"atoms", predabs::HornUse::kAtoms},
                                                        {"off", predabs::HornUse::kOff}};
  sub.add_option_function<std::string>(
         "--horn", [&o, uses](const std::string& value) { o.horn = uses.at(value); },
         ".drb: the Horn solver's invariant at one count, as druba's (both, proof, atoms, off)")
      ->check(CLI::IsMember({"both", "proof", "atoms", "off"}));
  sub.add_option("--max-threads", o.max_threads,
                 ".drb with --threads N..: the largest thread count to try (default 8)");
}

// `verify`'s options of every kind: the proofs and what a safe verdict writes.
void AddVerifyOptions(CLI::App& sub, Options& o) {
  sub.add_option("--certificate", o.certificate,
                 "a safe verdict's certificate, which `druba check` decides")
      ->check(front::NotEmpty());
  sub.add_option("--exhaust-share", o.request.exhaust_share,
                 "after a failed closure test, the exact search goes on towards exhaustion "
                 "for at most this many times the successor calls spent before the test, "
                 "counted as at least 262,144 (default 4; 0: the paper's proof alone)")
      ->check(CLI::NonNegativeNumber);
  const std::map<std::string, run::UpperBound> bounds = {{"auto", run::UpperBound::kAuto},
                                                         {"joint", run::UpperBound::kJoint},
                                                         {"static", run::UpperBound::kStatic},
                                                         {"off", run::UpperBound::kOff}};
  sub.add_option("--upper-bound", o.upper_bound,
                 "the sandwich proof's O, computed first where druba computes it first (.pds: "
                 "a target or --deadlock, or interchangeable threads; .drb: joint only, "
                 "without deadlock): auto and joint (.pds: pops by the may-lie-below relation "
                 "computed with O; .drb: the all-SAT post), static (.pds), or off (the "
                 "paper's proof alone)")
      ->transform(CLI::CheckedTransformer(bounds));
  sub.add_option(
         "--symmetric-search", o.symmetric_search,
         ".pds with interchangeable threads: the lower bound by a search over one state per "
         "orbit (on, the default; its first 4M successor calls, as druba's), or not (off)")
      ->check(CLI::IsMember({"on", "off"}));
}

// The options of `command`: those of `druba test` and `druba verify` that the distributed search
// has, and its own (--batch-bytes, --stepwise).
void AddOptions(CLI::App& app, run::Command command, const std::string& what, Options& o) {
  CLI::App* sub = app.add_subcommand(std::string(run::CommandName(command)), what);
  sub->callback([&o, command] { o.command = command; });
  const bool test = command == run::Command::kTest;
  sub->add_option("model", o.model, "a .pds or .drb model")->required();
  if (test) {
    AddTestOptions(*sub, o);
  } else {
    AddDrbVerifyOptions(*sub, o);
  }
  sub->add_option("--threads", o.threads,
                  ".drb: N threads (default: the file's); verify: N.. for every count from N");
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
                  "a violation's run, in the format `druba replay` reads")
      ->check(front::NotEmpty());
  if (!test) AddVerifyOptions(*sub, o);
  sub->add_option("--dump-abstract", o.dump_abstract,
                  "the reached abstract states, one per line, sorted (as druba's; .drb: verify)")
      ->check(front::NotEmpty());
  sub->add_flag("--progress", o.progress,
                "a line on standard error every 2 s: what is being computed (the bounds, O, the "
                "search over orbits), each process's states and memory");
  sub->add_option("--progress-every", o.progress_every_s,
                  "with --progress: seconds between lines (default 2)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--time-limit", o.time_limit_s, "seconds; then the verdict is unknown");
  sub->add_option("--memory-limit", o.memory_limit_mb, "MB per process; then unknown");
}

// The progress line of --progress, on standard error.
void PrintProgress(Options& o) {
  o.request.progress_interval_s = o.progress_every_s;
  o.request.progress = [clock = Stopwatch()](const distributed::ProgressLine& line) {
    std::uint64_t all = 0;
    for (const std::uint64_t count : line.counts) all += count;
    std::fprintf(stderr, "%s\n",
                 fmt::format("druba-mpi: {:6.1f} s  {}  {} {} (per process: {})  "
                             "memory per process: {:.0f} MB",
                             clock.Seconds(), line.phase, all, line.noun,
                             fmt::join(line.counts, " "), fmt::join(line.memory_mb, " "))
                     .c_str());
  };
}

// A usage error of `sub`'s options for a model of this kind (empty: none): an option of the other
// kind is refused, never ignored.
std::string RefusedOption(const CLI::App& sub, const Options& o, bool pds) {
  const auto given = [&sub](const char* name) {
    const CLI::Option* option = sub.get_option_no_throw(name);
    return option != nullptr && option->count() > 0;
  };
  std::string misplaced;
  for (const char* name : {"--top", "--init", "--target", "--spec", "--symmetric-search"}) {
    if (!pds && given(name)) misplaced = name;
  }
  for (const char* name :
       {"--threads", "--abstraction", "--solver-timeout", "--refine", "--horn", "--max-threads"}) {
    if (pds && given(name)) misplaced = name;
  }
  if (!misplaced.empty()) return misplaced + " is for " + (pds ? ".drb" : ".pds") + " models";
  if (!pds && o.command == run::Command::kTest && given("--dump-abstract")) {
    return "--dump-abstract: a .drb test has no abstraction (verify has one)";
  }
  if (!pds && o.upper_bound == run::UpperBound::kStatic) {
    return  // as druba's (front/drb.cc)
        "--upper-bound static: the static relation is for CPDS models (a .drb model's upper "
        "bound is the all-SAT post: --upper-bound joint)";
  }
  return "";
}

int Main(int argc, char** argv) {
  distributed::Comm comm;
  Options o;
  CLI::App app{"druba-mpi: druba's Round-Robin search over the processes of an MPI run"};
  app.require_subcommand(1);
  AddOptions(app, run::Command::kTest,
             "R(rounds, delays): the states reached, by hash over the processes, and any violation",
             o);
  AddOptions(app, run::Command::kVerify,
             "the sandwich proof where druba computes O first (a target, or interchangeable "
             "threads), else the paper's proof (plateaus and the closure test, then exhaustion "
             "if the test fails), or a violation: as druba verify (.drb: at one thread count, "
             "as druba verify --refine off --symmetric-search off)",
             o);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = comm.rank() == 0 ? app.exit(e) : e.get_exit_code();
    comm.Max(0);
    return code == 0 ? 0 : exit_code::kUsage;
  }
  if (o.progress) PrintProgress(o);
  o.request.gather_answer = !o.certificate.empty() || !o.dump_abstract.empty();
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  LimitWatch limits({o.time_limit_s, o.memory_limit_mb}, &g_interrupted);
  const std::string& model = o.model;
  const bool pds = model.ends_with(".pds");
  const std::string refused =
      RefusedOption(*app.get_subcommand(std::string(run::CommandName(o.command))), o, pds);
  if (!refused.empty()) {
    if (comm.rank() == 0) std::fprintf(stderr, "druba-mpi: %s\n", refused.c_str());
    comm.Max(0);
    return exit_code::kUsage;
  }
  if (!pds && !model.ends_with(".drb")) {
    if (comm.rank() == 0) {
      std::fprintf(stderr, "%s: error: not a .pds or .drb model\n", model.c_str());
    }
    comm.Max(0);
    return exit_code::kInput;
  }
  try {
    Described d = pds ? RunCpds(comm, o, limits) : RunDrb(comm, o, limits);
    if (comm.rank() == 0) Deliver(o, comm, d);
    comm.Max(0);  // every process ends after the report is out
    // Only process 0 ends with the code: mpirun returns the first code other than 0 and then
    // aborts every process still running, which took it 2 s after the run had stopped on a limit
    // (its report at 2.0 s, mpirun's end at 4.4 s) when every process ended with 5.
    if (comm.rank() != 0) return exit_code::kSafe;
    if (!d.output_error.empty()) return exit_code::kInput;
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
