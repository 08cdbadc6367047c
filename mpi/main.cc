// druba-mpi: `druba test`'s Round-Robin search spread over the processes of an MPI run
// (docs/distributed.md). Each process reads the model; the states are shared out by hash
// (distributed/search.h) and process 0 prints the report. Every process ends with the exit code,
// druba's (cli/exit_codes.h), once the report is out: mpirun, which stops the run at the first
// process that ends with a code other than 0, then returns it.
//
//   mpirun -np 4 druba-mpi test MODEL.pds|MODEL.drb --rounds R --delays D [--json]
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

#include "cli/exit_codes.h"
#include "common/diagnostics.h"
#include "common/digest.h"
#include "common/files.h"
#include "cpds/describer.h"
#include "cpds/model.h"
#include "cpds/top_k.h"
#include "drb/parser.h"
#include "front/cpds.h"
#include "mpi/run.h"
#include "predabs/describer.h"
#include "predabs/model.h"
#include "run/report.h"
#include "run/run_count.h"

namespace druba::mpi {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void OnSignal(int /*signal*/) {
  g_interrupted.store(true);
}

struct Options {
  Request request;
  cpds::CpdsOptions cpds;
  std::uint32_t threads = 0;  // .drb: 0 is the file's count
  bool deadlock = false;
  bool json = false;
  std::string trace_out;
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
  out.outcome.reason = "a reachable state violates the property: " + out.property;
  out.trace = run::DescribeTrace(kind, steps);
}

// Every process reads the model for itself. When one cannot, every process stops with the first
// one's message (process 0 prints it), so that none waits for the others in a collective.
void AgreeRead(const distributed::Comm& comm, const std::string& error) {
  const auto none = static_cast<std::uint64_t>(comm.size());
  const std::uint64_t first =
      comm.Min(error.empty() ? none : static_cast<std::uint64_t>(comm.rank()));
  if (first != none) throw ReadFailed{comm.Broadcast(error, static_cast<int>(first))};
}

Described RunCpds(distributed::Comm& comm, const Options& o, LimitWatch& limits) {
  std::optional<front::LoadedCpds> read;
  std::string error;
  try {
    read = front::LoadCpds(o.request.model, o.cpds);
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
  out.outcome = Run(comm, model, property, o.request, limits);
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
  try {
    source = ReadFile(o.request.model);
    read = drb::ParseProgram(source, o.request.model);
  } catch (const InputError& e) {
    error = e.what();
  }
  AgreeRead(comm, error);
  const drb::Program& program = *read;
  const std::uint32_t n = o.threads > 0 ? o.threads : program.NumThreads();
  predabs::IntModel model(program, n);
  model.SetLimits(&limits);
  const bool deadlock = o.deadlock || program.check_deadlock;
  Property property;
  property.violates = [&](StateView s) {
    return model.AnyThreadFailed(s) || (deadlock && model.Deadlocked(s));
  };
  Described out;
  out.outcome = Run(comm, model, property, o.request, limits);
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
  report.options.model = o.request.model;
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
  if (o.json) {
    nlohmann::json j = {{"verdict", std::string(VerdictName(r.verdict))},
                        {"reason", r.reason},
                        {"command", "test"},
                        {"model", o.request.model},
                        {"processes", comm.size()},
                        {"threads", d.threads},
                        {"rounds", r.bounds.rounds},
                        {"delays", r.bounds.delays},
                        {"concrete_states", r.states},
                        {"keys", r.keys},
                        {"pareto_pairs", r.pairs},
                        {"image_calls", r.image_calls},
                        {"transitions", r.transitions},
                        {"bytes_sent", r.bytes_sent},
                        {"messages", r.messages},
                        {"exchanges", r.exchanges},
                        {"states_by_process", r.states_by_process},
                        {"peak_rss_mb_by_process", r.peak_rss_mb_by_process},
                        {"time_s", r.time_s}};
    j["abstract_states"] = r.abstract_states ? nlohmann::json(*r.abstract_states) : nullptr;
    if (!d.trace.empty()) {
      j["property"] = d.property;
      j["trace"] = nlohmann::json::parse(TraceFileOf(o, d))["steps"];
    }
    fmt::print("{}\n", j.dump());
    return;
  }
  fmt::print("druba-mpi test {}: {} processes, {}\n", o.request.model, comm.size(), d.subject);
  fmt::print("verdict: {} ({})\n", VerdictName(r.verdict), r.reason);
  if (!d.trace.empty()) {
    fmt::print("trace: {} slots, walked back across the processes\n{}", d.trace.size(),
               run::TraceText(d.trace));
  }
  fmt::print("states: {} (per process: {}), keys: {}, Pareto pairs: {}", r.states,
             fmt::join(r.states_by_process, " "), r.keys, r.pairs);
  if (r.abstract_states) fmt::print(", abstract states: {}", *r.abstract_states);
  double rss = 0;
  for (const double mb : r.peak_rss_mb_by_process) rss += mb;
  fmt::print("\nsent: {} bytes in {} messages over {} exchanges\n", r.bytes_sent, r.messages,
             r.exchanges);
  fmt::print("time: {:.2f} s; peak memory per process: {:.1f} MB (sum {:.1f} MB)\n", r.time_s,
             fmt::join(r.peak_rss_mb_by_process, " "), rss);
}

int Main(int argc, char** argv) {
  distributed::Comm comm;
  Options o;
  CLI::App app{"druba-mpi: druba's Round-Robin search over the processes of an MPI run"};
  app.require_subcommand(1);
  CLI::App* test = app.add_subcommand("test",
                                      "R(rounds, delays): the states reached, by hash "
                                      "over the processes, and any violation");
  test->add_option("model", o.request.model, "a .pds or .drb model")->required();
  test->add_option("--rounds", o.request.bounds.rounds, "round bound (default 0)");
  test->add_option("--delays", o.request.bounds.delays, "delay bound (default 0)");
  test->add_flag("--stepwise", o.request.stepwise,
                 "reach the bounds one raise at a time, as verify does");
  test->add_option("--batch-bytes", o.request.batch_bytes,
                   "bytes of successors a process queues before an exchange (default 4 MiB)")
      ->check(CLI::PositiveNumber);
  test->add_option("--threads", o.threads, ".drb: the thread count (default: the file's)");
  test->add_option("--top", o.cpds.top, ".pds: K, the top symbols of each stack kept")
      ->check(CLI::Range(1, 64));
  test->add_option("--init", o.cpds.init, ".pds: the initial state file");
  test->add_option("--target", o.cpds.target, ".pds: a target visible state");
  test->add_option("--spec", o.cpds.spec, ".pds: a .spec file naming a target");
  test->add_flag("--deadlock", o.deadlock, "a deadlocked state violates too");
  test->add_flag("--json", o.json, "the report as one JSON object");
  test->add_option("--trace-out", o.trace_out,
                   "a violation's run, in the format `druba replay` reads");
  test->add_option("--time-limit", o.time_limit_s, "seconds; then the verdict is unknown");
  test->add_option("--memory-limit", o.memory_limit_mb, "MB per process; then unknown");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = comm.rank() == 0 ? app.exit(e) : e.get_exit_code();
    comm.Max(0);
    return code == 0 ? 0 : exit_code::kUsage;
  }
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  LimitWatch limits({o.time_limit_s, o.memory_limit_mb}, &g_interrupted);
  const std::string& model = o.request.model;
  if (!model.ends_with(".pds") && !model.ends_with(".drb")) {
    if (comm.rank() == 0)
      std::fprintf(stderr, "%s: error: not a .pds or .drb model\n", model.c_str());
    comm.Max(0);
    return exit_code::kInput;
  }
  try {
    const Described d =
        model.ends_with(".pds") ? RunCpds(comm, o, limits) : RunDrb(comm, o, limits);
    if (comm.rank() == 0) {
      Print(o, comm, d);
      if (!o.trace_out.empty() && !d.trace.empty()) {
        WriteFileAtomically(o.trace_out, TraceFileOf(o, d));
      }
      std::fflush(stdout);
    }
    comm.Max(0);  // every process ends after the report is out
    return ExitCodeFor(d.outcome.verdict);
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
