#include "cli/drb_command.h"
#include "cli/abstract_graph.h"
#include "cli/run_common.h"
#include "cli/schedule_svg.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abstraction/driver.h"
#include "common/files.h"
#include "common/json.h"
#include "common/json_reader.h"
#include "predabs/model.h"
#include "predabs/parser.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/replay.h"
#include "predabs/thread_counts.h"

namespace druba::cli {
namespace {

using predabs::IntModel;
using predabs::PredicateAbstraction;
using DrbDriver = PlateauDriver<IntModel, PredicateAbstraction>;

const char* FailureText(predabs::Failure f) {
  switch (f) {
    case predabs::Failure::kAssert:
      return "the assertion fails";
    case predabs::Failure::kDivisionByZero:
      return "division by zero";
    case predabs::Failure::kNegativeNat:
      return "a nat variable would become negative";
    case predabs::Failure::kBadIndex:
      return "a thread index out of range";
    case predabs::Failure::kNone:
      break;
  }
  return "";
}

struct TraceLine {
  TraceStep::Kind kind;
  std::uint32_t thread;
  std::string label;
  std::uint32_t line = 0;
  std::string statement;
  std::uint32_t rounds;
  std::uint32_t delays;
  std::string state;
  std::string changes;
  std::string failure;
};

// Everything the report needs from one thread count's run, copied out of the run.
struct OneRun {
  std::uint32_t n = 0;
  RunResult result;
  std::size_t concrete = 0;
  std::size_t keys = 0;
  std::unique_ptr<StateStore> set;
  std::vector<std::string> abstract_lines;
  std::vector<std::string> disrespecting;
  std::size_t num_actions = 0;
  predabs::SolverStats solver;
  std::string closure_from;
  std::string closure_action;
  std::string closure_to;
  std::vector<std::string> all_failures;  // up to 20 breaks of closure
  std::vector<TraceLine> trace;
  std::string dot;
};

// The sandwich proof for a fixed thread count (DESIGN.md section 8): O by the all-SAT abstract
// post of every statement, relative to O itself (the closure test's invariant, "every thread's
// view lies in the set", holds of a set closed under every action by upper_bound.h's induction).
// No thread symmetry: the abstraction is thread 0's view, not one component per thread, so the
// proof holds when U reaches O. Each abstract successor is a solver query, far dearer than a
// concrete successor call (on the bundled models O costs more than the whole exploration), so it
// runs only when asked for (--upper-bound joint), and then first.
SandwichSetup DrbSandwich(const PredicateAbstraction& abs) {
  SandwichSetup setup;
  setup.upper_bound = [&abs](std::unique_ptr<StateStore> initial) {
    return MakeKleeneUpperBound(
        std::move(initial), [&abs](const StateStore& s) { return abs.MakeClosureOracle(s); },
        std::size_t{1} << 24);
  };
  setup.relation = "all-SAT";
  return setup;
}

// Every reached abstract state with an unreached successor under a disrespecting action (up to
// `max`), not only the first the closure test met: they help choose better predicates.
std::vector<std::string> ClosureBreaks(PredicateAbstraction& abs, const StateStore& set,
                                       std::size_t max) {
  std::vector<std::string> breaks;
  std::string undecided;
  for (const predabs::ActionClass& c : abs.Classes()) {
    if (c.respects || !undecided.empty()) continue;
    for (std::uint32_t id = 0; id < set.size() && undecided.empty(); ++id) {
      abs.Successors(
          c, set.Get(id), set,
          [&](StateView to) {
            if (set.Find(to) || breaks.size() >= max) return;
            breaks.push_back(
                "(" + abs.Describe(set.Get(id)) + ") -> (" + abs.Describe(to) + ") under " +
                abs.DescribeAction(c.other ? predabs::kOtherThread : c.thread, c.stmt));
          },
          &undecided);
    }
  }
  return breaks;
}

// A violation's trace as the report shows it: each step's statement, its source line, the
// variables it changed and, on the failing step, why it failed.
std::vector<TraceLine> TraceLines(const predabs::Program& program, IntModel& model,
                                  const std::vector<TraceStep>& steps) {
  std::vector<TraceLine> lines;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const TraceStep& s = steps[i];
    TraceLine line{s.kind, s.thread, "",       0,
                   "",     s.rounds, s.delays, model.DescribeState(StateView(s.state)),
                   "",     ""};
    if (s.kind == TraceStep::Kind::kStep) {
      const predabs::Statement& st = program.statements[s.action];
      line.label = st.label;
      line.line = st.where.line;
      line.statement = st.text;
      line.changes = model.DescribeChanges(StateView(steps[i - 1].state), StateView(s.state));
      if (s.state[model.PcSlot(s.thread)] == program.error_pc) {
        line.failure =
            FailureText(model.FailureOf(StateView(steps[i - 1].state), s.thread, s.action));
      }
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

// DRUBA_DEBUG_SOLVER=1 in the environment: every solver query and model on stderr (docs/drb.md).
const predabs::SolverLog* SolverLogFromEnvironment() {
  static const predabs::SolverLog log = [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
  };
  return std::getenv("DRUBA_DEBUG_SOLVER") != nullptr ? &log : nullptr;
}

OneRun RunOne(const RunOptions& options, const predabs::Program& program,
              const predabs::AbstractionSpec& spec, std::uint32_t n, LimitWatch& limits,
              bool fixed_count) {
  OneRun out;
  out.n = n;
  IntModel model(program, n);
  model.SetLimits(&limits);
  PredicateAbstraction abs(model, spec, options.solver_timeout_ms);
  abs.SetLimits(&limits);
  if (const predabs::SolverLog* log = SolverLogFromEnvironment()) abs.SetSolverLog(*log);
  const Mode mode = options.mode;
  DrbDriver run(model, abs, &limits, mode);
  run.KeepTrace(!options.no_trace);
  run.SetJobs(JobsFromOption(options.jobs), /*adaptive=*/options.jobs == 0);
  if (options.command == "verify" && fixed_count && options.upper_bound == "joint") {
    SandwichSetup setup = DrbSandwich(abs);
    setup.share = 1e12;  // O at once (after the initial states' step)
    run.UseSandwich(std::move(setup));
  }
  if (options.progress) InstallProgress(limits, run, "threads=" + std::to_string(n) + " ");
  if (options.command == "test") {
    out.result = options.delays ? run.Bounded({options.rounds, *options.delays})
                                : run.Deepen(options.rounds, options.max_delays);
  } else if (mode == Mode::kExplicit) {
    out.result = run.Explicit([&](StateView state) -> std::string {
      if (!model.HasValueBeyond(state, options.max_value)) return {};
      return "explicit: a variable's value went beyond " + std::to_string(options.max_value) +
             " (--max-value); the state space may be infinite, which explicit search cannot "
             "handle";
    });
  } else {
    out.result = run.Verify();
  }
  if (!options.dot.empty() && mode != Mode::kExplicit) {
    out.dot = AbstractGraphDot(model, abs, run.explorer(), run.abstract_states(),
                               [&](std::uint32_t t, std::uint32_t a) {
                                 return "T" + std::to_string(t) + " " + program.statements[a].label;
                               });
  }
  out.concrete = run.num_states();
  out.keys = mode == Mode::kExplicit ? run.num_states() : run.explorer().num_keys();
  const StateStore& set = run.abstract_states();
  out.set = std::make_unique<StateStore>(abs.width());
  for (std::uint32_t id = 0; id < set.size(); ++id) {
    out.set->FindOrInsert(set.Get(id));
    out.abstract_lines.push_back(abs.Describe(set.Get(id)));
  }
  std::sort(out.abstract_lines.begin(), out.abstract_lines.end());
  if (out.result.verdict == Verdict::kSafe || out.result.closure_failure) {  // classified
    for (const predabs::ActionClass& c : abs.Classes()) {
      ++out.num_actions;
      if (!c.respects) {
        out.disrespecting.push_back(
            abs.DescribeAction(c.other ? predabs::kOtherThread : c.thread, c.stmt) +
            (c.undecided ? " [respect undecided]" : ""));
      }
    }
  }
  out.solver = abs.solver_stats();
  if (out.result.closure_failure && out.result.closure_failure->undecided.empty()) {
    const ClosureFailure& f = *out.result.closure_failure;
    out.closure_from = abs.Describe(StateView(f.from));
    out.closure_action = abs.DescribeAction(f.thread, f.action);
    out.closure_to = abs.Describe(StateView(f.to));
    out.all_failures = ClosureBreaks(abs, set, 20);
  }
  if (out.result.violation_record) {
    out.trace = TraceLines(program, model, run.Trace(*out.result.violation_record));
  }
  return out;
}

void WriteTraceJson(JsonWriter& w, const std::vector<TraceLine>& trace) {
  w.BeginArray();
  for (const TraceLine& t : trace) {
    w.BeginObject();
    w.Key("kind").String(TraceKindName(t.kind));
    w.Key("thread").UInt(t.thread);
    if (t.kind == TraceStep::Kind::kStep) {
      w.Key("label").String(t.label);
      w.Key("line").UInt(t.line);
      w.Key("statement").String(t.statement);
      if (!t.failure.empty()) w.Key("failure").String(t.failure);
    }
    w.Key("rounds").UInt(t.rounds);
    w.Key("delays").UInt(t.delays);
    w.Key("state").String(t.state);
    w.EndObject();
  }
  w.EndArray();
}

std::string TraceText(const std::vector<TraceLine>& trace) {
  std::string out = "trace (" + std::to_string(trace.size() - 1) + " slots):\n";
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const TraceLine& t = trace[i];
    if (t.kind == TraceStep::Kind::kInitial) {
      out += "  initial            " + t.state + "\n";
      continue;
    }
    char head[64];
    std::snprintf(head, sizeof head, "  %4zu  r%-3u T%-3u %-7s", i, t.rounds, t.thread,
                  TraceKindName(t.kind));
    out += head;
    if (t.kind == TraceStep::Kind::kStep) {
      out += t.label + ": " + t.statement + " (line " + std::to_string(t.line) + ")";
      if (!t.failure.empty()) out += "  FAILS: " + t.failure;
      if (!t.changes.empty()) out += "  ->" + t.changes;
    }
    out += "\n";
  }
  out += "  reached            " + trace.back().state + "\n";
  return out;
}

void WriteRunJson(JsonWriter& w, const OneRun& one) {
  const RunResult& r = one.result;
  w.BeginObject();
  w.Key("threads").UInt(one.n);
  w.Key("verdict").String(VerdictName(r.verdict));
  w.Key("reason").String(r.reason);
  w.Key("abstract_states").UInt(one.set->size());
  w.Key("concrete_states").UInt(one.concrete);
  w.Key("keys").UInt(one.keys);
  WriteBoundsJson(w, r);
  WriteProofJson(w, r, "all-SAT", nullptr);
  w.Key("image_calls").UInt(r.image_calls);
  w.Key("image_calls_final_plateau").UInt(r.image_calls - r.image_calls_before_plateau);
  w.Key("closure_checks").UInt(r.closure_checks);
  w.Key("solver_queries").UInt(one.solver.queries);
  w.Key("solver_time_s").Double(one.solver.seconds);
  w.Key("time_s").Double(r.time_s);
  w.Key("disrespecting_actions").BeginArray();
  for (const std::string& d : one.disrespecting) w.String(d);
  w.EndArray();
  if (!one.closure_from.empty()) {
    w.Key("closure_failure").BeginObject();
    w.Key("from").String(one.closure_from);
    w.Key("action").String(one.closure_action);
    w.Key("to").String(one.closure_to);
    w.EndObject();
    w.Key("closure_failures").BeginArray();
    for (const std::string& f : one.all_failures) w.String(f);
    w.EndArray();
  }
  WriteScheduleJson(w, r.schedule);
  if (!one.trace.empty()) {
    w.Key("trace");
    WriteTraceJson(w, one.trace);
  }
  w.EndObject();
}

std::string RunHuman(const OneRun& one, bool detail) {
  const RunResult& r = one.result;
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "  %u threads: %s, %zu abstract states, %zu concrete states, (r,d) = (%u,%u), "
                "%llu successor calls, %llu solver queries (%.2f s), %.3f s\n",
                one.n, std::string(VerdictName(r.verdict)).c_str(), one.set->size(), one.concrete,
                r.bounds.rounds, r.bounds.delays, static_cast<unsigned long long>(r.image_calls),
                static_cast<unsigned long long>(one.solver.queries), one.solver.seconds, r.time_s);
  out += buf;
  if (!detail) return out;
  if (r.proof == Proof::kSandwich) {
    out += "    every abstract state of the upper bound O is reached\n";
  } else if (r.verdict == Verdict::kSafe && r.proof != Proof::kExhausted) {
    std::snprintf(buf, sizeof buf,
                  "    the abstract sets at (r,d) = (%u,%u) and (%u,%u) agree; %zu of %zu actions "
                  "disrespect the abstraction; %llu of their abstract successors checked\n",
                  r.plateau_start.rounds, r.plateau_start.delays, r.bounds.rounds, r.bounds.delays,
                  one.disrespecting.size(), one.num_actions,
                  static_cast<unsigned long long>(r.closure_checks));
    out += buf;
  }
  const std::string proof = ProofLine(r, "all-SAT");
  if (!proof.empty()) out += "  " + proof;
  if (!one.closure_from.empty()) {
    out += "    reached abstract state (" + one.closure_from + ") has the successor (" +
           one.closure_to + ") under " + one.closure_action + ", which was not reached\n";
    if (one.all_failures.size() > 1) {
      out += "    every reached state with an unreached successor" +
             std::string(one.all_failures.size() >= 20 ? " (the first 20)" : "") + ":\n";
      for (const std::string& f : one.all_failures) out += "      " + f + "\n";
    }
  }
  return out;
}

// `druba replay MODEL.drb --trace FILE`: re-execute a saved trace slot by slot.
int Replay(const RunOptions& options, const predabs::Program& program) {
  const JsonValue doc = ParseJson(ReadFile(options.replay_trace), options.replay_trace);
  const ReplayOutcome done = predabs::ReplayTrace(program, doc, options.replay_trace);
  std::cout << "replay: violation confirmed: " << done.slots << " slots, " << done.delays
            << " delays, reached " << done.reached << "\n";
  return exit_code::kViolation;
}

// Everything a `.drb` run reports, for the report writers below.
struct DrbReport {
  const RunOptions& options;
  const predabs::Program& program;
  const predabs::AbstractionSpec& spec;
  const predabs::ThreadCounts& threads;
  const predabs::ThreadCountsResult& counts;
  const std::vector<OneRun>& runs;  // one per thread count run; the last answers
  double time_s;
};

// --dump-abstract, --trace-out, --dot and --schedule-svg.
void WriteOutputFiles(const DrbReport& report) {
  const RunOptions& options = report.options;
  const predabs::AbstractionSpec* spec = &report.spec;
  const Verdict verdict = report.counts.verdict;
  const std::string& reason = report.counts.reason;
  const OneRun& final_run = report.runs.back();
  if (!options.dump_abstract.empty()) {
    std::string text = DumpHeader(verdict, reason, final_run.result.proof);
    for (const std::string& line : final_run.abstract_lines) text += line + "\n";
    WriteFileAtomically(options.dump_abstract, text);
  }
  if (!options.trace_out.empty() && !final_run.trace.empty()) {
    JsonWriter w;
    w.BeginObject();
    w.Key("druba_trace").UInt(1);
    w.Key("model").String(options.model);
    w.Key("threads").UInt(final_run.n);
    w.Key("steps");
    WriteTraceJson(w, final_run.trace);
    w.EndObject();
    WriteFileAtomically(options.trace_out, w.str() + "\n");
  }

  if (!options.dot.empty()) {
    if (final_run.dot.empty()) {
      std::cerr << "druba: --dot: no graph written (more than " << kMaxDotNodes
                << " abstract states, or --mode explicit)\n";
    } else {
      WriteFileAtomically(options.dot, final_run.dot);
    }
  }
  if (!options.schedule_svg.empty()) {
    WriteFileAtomically(
        options.schedule_svg,
        ScheduleSvg(final_run.result.schedule, final_run.result,
                    "druba " + options.command + " " + options.model + ", " +
                        std::to_string(final_run.n) + " threads, abstraction " + spec->name));
  }
}

std::string JsonReport(const DrbReport& report) {
  const RunOptions& options = report.options;
  const predabs::AbstractionSpec* spec = &report.spec;
  const predabs::ThreadCounts& threads = report.threads;
  const Verdict verdict = report.counts.verdict;
  const std::string& reason = report.counts.reason;
  const std::optional<predabs::AllCountsResult>& all = report.counts.all;
  const std::vector<OneRun>& runs = report.runs;
  const OneRun& final_run = runs.back();
  const std::string thread_text = threads.Text();
  JsonWriter w;
  w.BeginObject();
  w.Key("verdict").String(VerdictName(verdict));
  w.Key("reason").String(reason);
  w.Key("command").String(options.command);
  w.Key("model").String(options.model);
  w.Key("threads").String(thread_text);
  w.Key("abstraction").String(spec->name);
  w.Key("mode").String(ModeName(options.mode));
  w.Key("abstract_states").UInt(final_run.set->size());
  w.Key("abstract_state_list").BeginArray();
  for (const std::string& line : final_run.abstract_lines) w.String(line);
  w.EndArray();
  w.Key("concrete_states").UInt(final_run.concrete);
  w.Key("rounds").UInt(final_run.result.bounds.rounds);
  w.Key("delays").UInt(final_run.result.bounds.delays);
  w.Key("time_s").Double(report.time_s);
  w.Key("peak_rss_mb").Double(PeakRssMb());
  w.Key("runs").BeginArray();
  for (const OneRun& one : runs) WriteRunJson(w, one);
  w.EndArray();
  if (all) {
    w.Key("all_thread_counts").BeginObject();
    w.Key("from").UInt(threads.first);
    w.Key("closed").Bool(all->closed);
    w.Key("reason").String(all->reason);
    w.Key("closure_checks").UInt(all->closure_checks);
    w.Key("solver_queries").UInt(all->stats.queries);
    w.Key("solver_time_s").Double(all->stats.seconds);
    w.EndObject();
  }
  if (!final_run.trace.empty()) {
    w.Key("trace");
    WriteTraceJson(w, final_run.trace);
  }
  w.EndObject();
  return w.str() + "\n";
}

std::string HumanReport(const DrbReport& report) {
  const RunOptions& options = report.options;
  const predabs::Program& program = report.program;
  const predabs::AbstractionSpec* spec = &report.spec;
  const predabs::ThreadCounts& threads = report.threads;
  const Verdict verdict = report.counts.verdict;
  const std::string& reason = report.counts.reason;
  const std::optional<predabs::AllCountsResult>& all = report.counts.all;
  const std::vector<OneRun>& runs = report.runs;
  const OneRun& final_run = runs.back();
  const std::string thread_text = threads.Text();
  std::string out = "druba " + options.command + ": " + options.model + ", threads " + thread_text +
                    ", abstraction " + spec->name + "\n";
  for (const OneRun& one : runs) out += RunHuman(one, &one == &final_run);
  if (all) {
    char buf[256];
    std::snprintf(buf, sizeof buf,
                  "  every thread count >= %u: %s; %llu abstract successors checked, %llu solver "
                  "queries (%.2f s)\n",
                  threads.first, all->closed ? "closed" : "not closed",
                  static_cast<unsigned long long>(all->closure_checks),
                  static_cast<unsigned long long>(all->stats.queries), all->stats.seconds);
    out += buf;
    if (all->failure) {
      out += "    reached abstract state (" +
             predabs::DescribeAbstract(program, *spec, StateView(all->failure->from)) +
             ") has the successor (" +
             predabs::DescribeAbstract(program, *spec, StateView(all->failure->to)) +
             "), which was not reached\n";
    }
  }
  out += "verdict: " + std::string(VerdictName(verdict)) + " (" + reason + ")\n";
  if (options.command == "verify" && (verdict == Verdict::kSafe || final_run.set->size() <= 64)) {
    out += "abstract states (" + std::to_string(final_run.set->size()) + "):\n";
    for (const std::string& line : final_run.abstract_lines) out += "  " + line + "\n";
  }
  if (all && !all->classes.empty()) {
    out += "actions that disrespect the abstraction across thread counts:\n";
    for (const predabs::ActionClass& c : all->classes) {
      if (c.respects) continue;
      const predabs::Statement& st = program.statements[c.stmt];
      out += std::string("  ") + (c.other ? "another thread" : "thread 0") + " executing " +
             st.label + ": " + st.text + (c.undecided ? " [respect undecided]" : "") + "\n";
    }
  } else if (!final_run.disrespecting.empty()) {
    out += "actions that disrespect the abstraction:\n";
    for (const std::string& d : final_run.disrespecting) out += "  " + d + "\n";
  }
  if (!final_run.trace.empty()) out += TraceText(final_run.trace);
  if (options.no_trace) out += "traces off (--no-trace)\n";
  if (verdict == Verdict::kBounded) {
    out += "note: no violation within the bounds is not a proof; `druba verify` proves safety\n";
  }
  return out;
}

}  // namespace

int RunDrb(const RunOptions& options, const std::atomic<bool>* interrupted) {
  const predabs::Program program = predabs::ParseProgram(ReadFile(options.model), options.model);
  if (options.command == "replay") return Replay(options, program);
  const predabs::ThreadCounts threads =
      predabs::ParseThreadCounts(options.threads, program, options.max_threads);
  const predabs::ChosenAbstraction chosen =
      predabs::ChooseAbstraction(program, options.abstraction, threads);
  const predabs::AbstractionSpec* spec = &chosen.spec();
  if (threads.every_count_from_first && options.command == "test") {
    throw InputError({"--threads", 0, 0}, "druba test explores one thread count; give --threads N");
  }
  LimitWatch limits({options.time_limit_s, options.memory_limit_mb}, interrupted);
  Stopwatch clock;

  std::vector<OneRun> runs;
  const predabs::ThreadCountsResult counts = predabs::RunThreadCounts(
      program, *spec, threads, options.solver_timeout_ms, &limits, SolverLogFromEnvironment(),
      [&](std::uint32_t n) {
        runs.push_back(RunOne(options, program, *spec, n, limits, !threads.every_count_from_first));
        return predabs::CountOutcome{runs.back().result.verdict, runs.back().result.reason,
                                     runs.back().set.get()};
      });
  const DrbReport report{options, program, *spec, threads, counts, runs, clock.Seconds()};
  WriteOutputFiles(report);
  std::cout << (options.json ? JsonReport(report) : HumanReport(report));
  std::cout.flush();
  return ExitCodeFor(report.counts.verdict);
}

}  // namespace druba::cli
