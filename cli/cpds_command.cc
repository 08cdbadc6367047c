#include "cli/cpds_command.h"

#include <filesystem>
#include <iostream>
#include <optional>
#include <string>

#include "check/cpds_check.h"
#include "cli/deliver.h"
#include "common/digest.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "cpds/describer.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "cpds/replay.h"
#include "cpds/top_k.h"
#include "run/report.h"
#include "run/run_count.h"

namespace druba::cli {
namespace {

using cpds::CpdsModel;
using cpds::TopKAbstraction;
using run::RunOptions;

struct Loaded {
  cpds::Cpds cpds;
  cpds::InitialState init;
  std::optional<cpds::TargetPattern> target;
  std::string target_text;
  std::string digest;  // of the model, initial state and target texts (certificates)
  Warnings warnings;
};

Loaded Load(const RunOptions& options) {
  Loaded out;
  const std::string pds_text = ReadFile(options.model);
  out.cpds = cpds::ParsePds(pds_text, options.model, &out.warnings);
  const std::string init_path =
      options.init.empty()
          ? std::filesystem::path(options.model).replace_extension(".init").string()
          : options.init;
  const std::string init_text = ReadFile(init_path);
  out.init = cpds::ParseInit(init_text, init_path, out.cpds);
  std::string target_source;
  if (!options.spec.empty()) {
    target_source = ReadFile(options.spec);
    out.target = cpds::ParseTarget(target_source, options.spec, out.cpds);
    out.target_text = options.spec;
  } else if (!options.target.empty()) {
    target_source = options.target;
    out.target = cpds::ParseTarget(options.target, "--target", out.cpds);
    out.target_text = options.target;
  }
  out.digest = ContentDigest({pds_text, init_text, target_source});
  if (out.target) {
    const std::string problem = TopKAbstraction::CheckTarget(*out.target, options.top);
    if (!problem.empty()) {
      throw InputError({options.spec.empty() ? "--target" : options.spec, 1, 0}, problem);
    }
  }
  return out;
}

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
  const bool deadlock = doc.Has("property") && doc.At("property").AsString() == "deadlock";
  if (!loaded.target && !deadlock) {
    throw InputError({given.replay_trace, 0, 0}, "no target to confirm: give --spec or --target");
  }
  CpdsModel model(loaded.cpds, loaded.init);
  std::uint32_t k = options.top;
  if (loaded.target) {
    for (const auto& stack : loaded.target->stacks) {
      if (stack) k = std::max(k, static_cast<std::uint32_t>(stack->size()));
    }
  }
  TopKAbstraction abs(model, k, loaded.target);
  abs.SetDeadlock(deadlock);
  const ReplayOutcome done = cpds::ReplayTrace(model, abs, doc, given.model, loaded.target_text);
  std::cout << "replay: violation confirmed: " << done.slots << " slots, " << done.delays
            << " delays, reached " << done.reached << " (target " << loaded.target_text << ")\n";
  return exit_code::kViolation;
}

// `druba check`: the certificate against the model, by the independent checker (src/check).
int Check(const RunOptions& options) {
  const Loaded loaded = Load(options);
  const JsonValue doc = ParseJson(ReadFile(options.certificate), options.certificate);
  // An exhaustion proof is certified at the depth that makes the abstraction exact, not at --top.
  const bool exact_depth = doc.Has("proof") && doc.At("proof").AsString() == "exhausted";
  if (options.top_given && !exact_depth && doc.At("k").AsUInt() != options.top) {
    return OptionDisagrees("--top " + std::to_string(options.top),
                           "for K = " + std::to_string(doc.At("k").AsUInt()));
  }
  if (options.deadlock && !doc.At("deadlock").AsBool()) {
    return OptionDisagrees("--deadlock", "not one of deadlock freedom");
  }
  const check::CheckResult r =
      check::CheckCpdsCertificate(doc, loaded.digest, loaded.cpds, loaded.init, loaded.target);
  return PrintCheck(r);
}

}  // namespace

int RunCpds(const RunOptions& options, const std::atomic<bool>* interrupted) {
  if (options.command == run::Command::kReplay) return Replay(options);
  if (options.command == run::Command::kCheck) return Check(options);
  const Loaded loaded = Load(options);
  for (const std::string& warning : loaded.warnings) std::cerr << warning << "\n";
  CpdsModel model(loaded.cpds, loaded.init);
  TopKAbstraction abs(model, options.top, loaded.target);
  abs.SetDeadlock(options.deadlock);
  LimitWatch limits({options.time_limit_s, options.memory_limit_mb}, interrupted);
  RunOptions with_digest = options;
  with_digest.model_digest = loaded.digest;
  const cpds::CpdsDescriber kind{with_digest, model, abs, loaded.target.has_value()};
  const Stopwatch clock;
  run::Report report;
  report.options = &options;
  report.runs.push_back(
      run::RunCount(model, abs, kind, options, limits, {StderrProgress(options), "", false}));
  const std::string threads = std::to_string(model.num_threads());
  report.subject = threads + " threads, top-" + std::to_string(abs.k()) + " abstraction" +
                   (loaded.target ? ", target " + loaded.target_text : "");
  report.header = {{"threads", model.num_threads()}, {"top", abs.k()}};
  report.trace_header = {{"target", loaded.target_text}, {"top", options.top}};
  if (!report.last().trace.empty()) {
    report.trace_header["rounds"] = report.last().trace.back().rounds;
    report.trace_header["delays"] = report.last().trace.back().delays;
  }
  report.verdict = report.last().result.verdict;
  report.reason = report.last().result.reason;
  report.warnings = loaded.warnings.size();
  report.time_s = report.last().result.time_s;
  report.svg_title = "druba " + std::string(run::CommandName(options.command)) + " " +
                     options.model + ", top-" + std::to_string(options.top) + ", " + threads +
                     " threads";
  return Deliver(report);
}

}  // namespace druba::cli
