#include "cli/cpds_command.h"
#include "cli/abstract_graph.h"
#include "cli/run_common.h"
#include "cli/schedule_svg.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "abstraction/driver.h"
#include "common/files.h"
#include "common/json.h"
#include "common/json_reader.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "cpds/replay.h"
#include "cpds/top_k.h"
#include "explore/trace.h"

namespace druba::cli {
namespace {

using cpds::CpdsModel;
using cpds::TopKAbstraction;
using CpdsDriver = PlateauDriver<CpdsModel, TopKAbstraction>;

std::string DefaultInitPath(const std::string& model) {
  std::filesystem::path path(model);
  path.replace_extension(".init");
  return path.string();
}

struct Loaded {
  cpds::Cpds cpds;
  cpds::InitialState init;
  std::optional<cpds::TargetPattern> target;
  std::string target_text;
  Warnings warnings;
};

Loaded Load(const RunOptions& options) {
  Loaded out;
  out.cpds = cpds::ParsePds(ReadFile(options.model), options.model, &out.warnings);
  const std::string init_path =
      options.init.empty() ? DefaultInitPath(options.model) : options.init;
  out.init = cpds::ParseInit(ReadFile(init_path), init_path, out.cpds);
  if (!options.spec.empty()) {
    out.target = cpds::ParseTarget(ReadFile(options.spec), options.spec, out.cpds);
    out.target_text = options.spec;
  } else if (!options.target.empty()) {
    out.target = cpds::ParseTarget(options.target, "--target", out.cpds);
    out.target_text = options.target;
  }
  if (out.target) {
    const std::string problem = TopKAbstraction::CheckTarget(*out.target, options.top);
    if (!problem.empty()) {
      throw InputError({options.spec.empty() ? "--target" : options.spec, 1, 0}, problem);
    }
  }
  return out;
}

std::string DumpAbstract(const CpdsDriver& run, const TopKAbstraction& abs) {
  std::vector<std::string> lines;
  const StateStore& set = run.abstract_states();
  lines.reserve(set.size());
  for (std::uint32_t id = 0; id < set.size(); ++id) lines.push_back(abs.Describe(set.Get(id)));
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

struct Report {
  const RunOptions& options;
  const Loaded& loaded;
  CpdsModel& model;
  const TopKAbstraction& abs;
  const CpdsDriver& run;
  const RunResult& result;
  const ThreadSymmetry& symmetry;
  std::vector<TraceStep> trace;

  // The relation O used ("auto" is "joint" for CPDS).
  std::string Relation() const {
    return options.upper_bound == "auto" ? "joint" : options.upper_bound;
  }

  std::uint64_t FinalPlateauCalls() const {
    return result.image_calls - result.image_calls_before_plateau;
  }
  double BytesPerKey() const {
    const auto keys = run.explorer().num_keys();
    if (keys == 0) return 0;
    return static_cast<double>(run.MemoryBytes() + model.stacks().MemoryBytes()) /
           static_cast<double>(keys);
  }

  std::string Json() const {
    const auto& ex = run.explorer();
    JsonWriter w;
    w.BeginObject();
    w.Key("verdict").String(VerdictName(result.verdict));
    w.Key("reason").String(result.reason);
    w.Key("command").String(options.command);
    w.Key("model").String(options.model);
    w.Key("threads").UInt(model.num_threads());
    w.Key("top").UInt(abs.k());
    w.Key("abstract_states").UInt(run.abstract_states().size());
    w.Key("concrete_states").UInt(run.num_states());
    w.Key("keys").UInt(ex.num_keys());
    w.Key("pareto_pairs").UInt(ex.num_records());
    WriteBoundsJson(w, result);
    WriteProofJson(w, result, Relation(), &symmetry);
    w.Key("mode").String(ModeName(options.mode));
    w.Key("image_calls").UInt(result.image_calls);
    w.Key("image_calls_final_plateau").UInt(FinalPlateauCalls());
    w.Key("transitions").UInt(ex.stats().transitions);
    w.Key("reexpansions").UInt(ex.stats().reexpansions);
    w.Key("closure_checks").UInt(result.closure_checks);
    w.Key("time_s").Double(result.time_s);
    w.Key("peak_rss_mb").Double(PeakRssMb());
    w.Key("bytes_per_key").Double(BytesPerKey());
    if (options.mode != Mode::kExplicit) {
      const auto m = ex.MemoryUse();
      const double keys = std::max<double>(1, static_cast<double>(ex.num_keys()));
      w.Key("bytes_per_key_by_part").BeginObject();
      w.Key("states").Double(static_cast<double>(m.states) / keys);
      w.Key("stacks").Double(static_cast<double>(model.stacks().MemoryBytes()) / keys);
      w.Key("key_index").Double(static_cast<double>(m.keys) / keys);
      w.Key("records").Double(static_cast<double>(m.records) / keys);
      w.Key("parents").Double(static_cast<double>(m.parents) / keys);
      w.Key("later_pairs").Double(static_cast<double>(m.pairs) / keys);
      w.Key("frontiers").Double(static_cast<double>(m.parked) / keys);
      w.EndObject();
    }
    w.Key("warnings").UInt(loaded.warnings.size());
    w.Key("traces").Bool(!options.no_trace);
    w.Key("jobs").UInt(run.jobs());
    if (result.closure_failure) {
      const ClosureFailure& f = *result.closure_failure;
      w.Key("closure_failure").BeginObject();
      w.Key("from").String(abs.Describe(StateView(f.from)));
      w.Key("thread").UInt(f.thread);
      w.Key("rule").String(model.DescribeRule(f.thread, f.action));
      w.Key("to").String(abs.Describe(StateView(f.to)));
      w.EndObject();
    }
    WriteScheduleJson(w, result.schedule);
    if (result.verdict == Verdict::kViolation && !trace.empty()) {
      w.Key("trace");
      WriteTrace(w);
    }
    w.EndObject();
    return w.str() + "\n";
  }

  void WriteTrace(JsonWriter& w) const {
    {
      w.BeginArray();
      for (const TraceStep& s : trace) {
        w.BeginObject();
        w.Key("kind").String(TraceKindName(s.kind));
        w.Key("thread").UInt(s.thread);
        if (s.kind == TraceStep::Kind::kStep) {
          w.Key("rule").String(cpds::RuleToString(model.rule(s.thread, s.action)));
          w.Key("line").UInt(model.rule(s.thread, s.action).line);
        }
        w.Key("rounds").UInt(s.rounds);
        w.Key("delays").UInt(s.delays);
        w.Key("state").String(model.DescribeState(StateView(s.state)));
        w.EndObject();
      }
      w.EndArray();
    }
  }

  // The file --trace-out writes: the model, the target and the schedule.
  std::string TraceFile() const {
    JsonWriter w;
    w.BeginObject();
    w.Key("druba_trace").UInt(1);
    w.Key("model").String(options.model);
    w.Key("threads").UInt(model.num_threads());
    w.Key("target").String(loaded.target_text);
    w.Key("top").UInt(options.top);
    w.Key("rounds").UInt(trace.back().rounds);
    w.Key("delays").UInt(trace.back().delays);
    w.Key("steps");
    WriteTrace(w);
    w.EndObject();
    return w.str() + "\n";
  }

  std::string Trace() const {
    std::string out = "trace (" + std::to_string(trace.size() - 1) + " slots):\n";
    std::vector<Word> prev;
    for (std::size_t i = 0; i < trace.size(); ++i) {
      const TraceStep& s = trace[i];
      char head[64];
      if (s.kind == TraceStep::Kind::kInitial) {
        out += "  initial            " + model.DescribeState(StateView(s.state)) + "\n";
        prev = s.state;
        continue;
      }
      std::snprintf(head, sizeof head, "  %4zu  r%-3u T%-3u %-7s", i, s.rounds, s.thread,
                    TraceKindName(s.kind));
      out += head;
      if (s.kind == TraceStep::Kind::kStep) {
        out += model.DescribeRule(s.thread, s.action);
        std::string changes;
        if (s.state[0] != prev[0]) changes += " shared=" + std::to_string(s.state[0]);
        for (std::size_t t = 1; t < s.state.size(); ++t) {
          if (s.state[t] != prev[t]) {
            changes += " T" + std::to_string(t - 1) + "=" +
                       cpds::StackToString(model.stacks().Contents(s.state[t]));
          }
        }
        if (!changes.empty()) out += "  ->" + changes;
      }
      out += "\n";
      prev = s.state;
    }
    out += "  reached            " + model.DescribeState(StateView(trace.back().state)) + "\n";
    return out;
  }

  std::string PlateauSplit() const {
    if (options.command != "verify") return "";
    return " (" + std::to_string(result.image_calls_before_plateau) +
           " before the final plateau, " + std::to_string(FinalPlateauCalls()) + " during it)";
  }

  std::string Human() const {
    const auto& ex = run.explorer();
    char buf[512];
    std::string out = "druba " + options.command + ": " + options.model + ", " +
                      std::to_string(model.num_threads()) + " threads, top-" +
                      std::to_string(abs.k()) + " abstraction" +
                      (loaded.target ? ", target " + loaded.target_text : "") + "\n";
    out += "verdict: " + std::string(VerdictName(result.verdict)) + " (" + result.reason + ")\n";
    if (result.proof == Proof::kSandwich) {
      out +=
          "  all " + std::to_string(run.abstract_states().size()) +
          " reachable abstract states: the upper bound O is reached up to thread symmetry within "
          "(r,d) = (" +
          std::to_string(result.bounds.rounds) + "," + std::to_string(result.bounds.delays) + ")\n";
    } else if (result.proof == Proof::kUpperBound) {
      out += "  no state of the upper bound O (" + std::to_string(run.abstract_states().size()) +
             " abstract states, a superset of the reachable ones) matches the target\n";
    } else if (result.verdict == Verdict::kSafe) {
      std::snprintf(buf, sizeof buf,
                    "  all %zu reachable abstract states reached: the abstract sets at (r,d) = "
                    "(%u,%u) and (%u,%u) agree; %llu disrespecting successors checked\n",
                    run.abstract_states().size(), result.plateau_start.rounds,
                    result.plateau_start.delays, result.bounds.rounds, result.bounds.delays,
                    static_cast<unsigned long long>(result.closure_checks));
      out += buf;
    }
    out += ProofLine(result, Relation());
    if (result.closure_failure) {
      const ClosureFailure& f = *result.closure_failure;
      out += "  reached abstract state " + abs.Describe(StateView(f.from)) + " has the successor " +
             abs.Describe(StateView(f.to)) + " under " + abs.DescribeAction(f.thread, f.action) +
             ", which was not reached\n";
    }
    if (result.verdict == Verdict::kViolation && !trace.empty()) out += Trace();
    if (options.no_trace) {
      out += "traces off (--no-trace)" +
             std::string(result.verdict == Verdict::kViolation ? ": no trace for this violation"
                                                               : "") +
             "\n";
    }
    std::snprintf(buf, sizeof buf,
                  "bounds at the end: %u rounds, %u delays\n"
                  "statistics:\n"
                  "  %12zu abstract states\n"
                  "  %12zu concrete states stored (%zu keys with finder, %zu Pareto pairs)\n"
                  "  %12llu successor calls%s\n"
                  "  %12llu transitions, %llu rediscoveries dominated, %llu re-expanded\n"
                  "  %12.3f s on %u thread%s, %.1f MB peak memory, %.1f bytes per key\n",
                  result.bounds.rounds, result.bounds.delays, run.abstract_states().size(),
                  ex.num_states(), ex.num_keys(), ex.num_records(),
                  static_cast<unsigned long long>(result.image_calls), PlateauSplit().c_str(),
                  static_cast<unsigned long long>(ex.stats().transitions),
                  static_cast<unsigned long long>(ex.stats().dominated),
                  static_cast<unsigned long long>(ex.stats().reexpansions), result.time_s,
                  run.jobs(), run.jobs() == 1 ? "" : "s", PeakRssMb(), BytesPerKey());
    out += buf;
    if (result.verdict == Verdict::kBounded) {
      out += "note: no violation within the bounds is not a proof; `druba verify` proves safety\n";
    }
    return out;
  }
};

// `druba replay`: re-execute a saved trace slot by slot on the concrete model.
int Replay(const RunOptions& given) {
  const JsonValue doc = ParseJson(ReadFile(given.replay_trace), given.replay_trace);
  RunOptions options = given;
  // The trace's target was read with the trace's abstraction depth (older traces: top-1).
  if (doc.Has("top")) options.top = std::max(options.top, doc.At("top").AsUInt());
  if (options.spec.empty() && options.target.empty() && doc.Has("target")) {
    const std::string& target = doc.At("target").AsString();
    (std::filesystem::exists(target) ? options.spec : options.target) = target;
  }
  const Loaded loaded = Load(options);
  if (!loaded.target) {
    throw InputError({given.replay_trace, 0, 0}, "no target to confirm: give --spec or --target");
  }
  CpdsModel model(loaded.cpds, loaded.init);
  std::uint32_t k = options.top;
  for (const auto& stack : loaded.target->stacks) {
    if (stack) k = std::max(k, static_cast<std::uint32_t>(stack->size()));
  }
  const TopKAbstraction abs(model, k, loaded.target);
  const ReplayOutcome done =
      cpds::ReplayTrace(model, abs, doc, given.replay_trace, given.model, loaded.target_text);
  std::cout << "replay: violation confirmed: " << done.slots << " slots, " << done.delays
            << " delays, reached " << done.reached << " (target " << loaded.target_text << ")\n";
  return exit_code::kViolation;
}

}  // namespace

int RunCpds(const RunOptions& options, const std::atomic<bool>* interrupted) {
  if (options.command == "replay") return Replay(options);
  Loaded loaded = Load(options);
  for (const std::string& warning : loaded.warnings) std::cerr << warning << "\n";
  CpdsModel model(loaded.cpds, loaded.init);
  const TopKAbstraction abs(model, options.top, loaded.target);
  LimitWatch limits({options.time_limit_s, options.memory_limit_mb}, interrupted);
  const Mode mode = options.mode;
  CpdsDriver run(model, abs, &limits, mode);
  run.KeepTrace(!options.no_trace);
  run.SetJobs(JobsFromOption(options.jobs), /*adaptive=*/options.jobs == 0);
  const ThreadSymmetry symmetry = abs.Symmetry();
  if (options.command == "verify" && options.upper_bound != "off") {
    SandwichSetup setup =
        cpds::MakeSandwich(abs, options.upper_bound != "static", loaded.target.has_value());
    setup.share = options.upper_bound_share;
    run.UseSandwich(std::move(setup));
  }
  if (options.progress) InstallProgress(limits, run);
  RunResult result;
  if (options.command != "test" && mode == Mode::kExplicit) {
    result = run.Explicit([&](StateView state) -> std::string {
      for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
        if (model.stacks().DepthUpTo(state[1 + t], options.max_stack) > options.max_stack) {
          return "explicit: thread " + std::to_string(t) + "'s stack grew past " +
                 std::to_string(options.max_stack) +
                 " symbols (--max-stack); its stack may be "
                 "unbounded, which explicit search cannot handle";
        }
      }
      return {};
    });
  } else if (options.command != "test") {
    result = run.Verify();
  } else if (options.delays) {
    result = run.Bounded({options.rounds, *options.delays});
  } else {
    result = run.Deepen(options.rounds, options.max_delays);
  }
  Report report{options, loaded, model, abs, run, result, symmetry, {}};
  if (result.violation_record) {
    report.trace = run.Trace(*result.violation_record);
  }
  if (!options.dump_abstract.empty()) {
    WriteFileAtomically(
        options.dump_abstract,
        DumpHeader(result.verdict, result.reason, result.proof) + DumpAbstract(run, abs));
  }
  if (!options.trace_out.empty() && !report.trace.empty()) {
    WriteFileAtomically(options.trace_out, report.TraceFile());
  }
  if (!options.dot.empty()) {
    const std::string dot =
        mode == Mode::kExplicit
            ? std::string()
            : AbstractGraphDot(model, abs, run.explorer(), run.abstract_states(),
                               [&](std::uint32_t t, std::uint32_t a) {
                                 return "T" + std::to_string(t) + ": " + model.DescribeRule(t, a);
                               });
    if (dot.empty()) {
      std::cerr << "druba: --dot: no graph written (more than " << kMaxDotNodes
                << " abstract states, or --mode explicit)\n";
    } else {
      WriteFileAtomically(options.dot, dot);
    }
  }
  if (!options.schedule_svg.empty()) {
    WriteFileAtomically(options.schedule_svg,
                        ScheduleSvg(result.schedule, result,
                                    "druba " + options.command + " " + options.model + ", top-" +
                                        std::to_string(options.top) + ", " +
                                        std::to_string(model.num_threads()) + " threads"));
  }
  std::cout << (options.json ? report.Json() : report.Human());
  std::cout.flush();
  return ExitCodeFor(result.verdict);
}

}  // namespace druba::cli
