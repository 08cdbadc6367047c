#include "front/cpds.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "check/request.h"
#include "common/diagnostics.h"
#include "common/digest.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "cpds/describer.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "cpds/replay.h"
#include "cpds/run_hooks.h"
#include "cpds/top_k.h"
#include "front/answer.h"
#include "front/options.h"
#include "run/report.h"
#include "run/run_count.h"

namespace druba::front {

LoadedCpds LoadCpds(const std::string& path, const cpds::CpdsOptions& options) {
  LoadedCpds out = cpds::ReadModelFiles(path, options.init, options.spec, options.target);
  if (out.target) {
    const std::string problem = cpds::TopKAbstraction::CheckTarget(*out.target, options.top);
    if (!problem.empty()) {
      throw InputError({options.spec.empty() ? "--target" : options.spec, 1, 0}, problem);
    }
  }
  return out;
}

namespace {

using cpds::CpdsModel;
using cpds::CpdsOptions;
using cpds::TopKAbstraction;
using run::RunOptions;

// `druba replay`: re-execute a saved trace slot by slot on the concrete model.
run::Outcome Replay(const RunOptions& request, const CpdsOptions& given) {
  const JsonValue doc = ParseJson(ReadFile(request.replay_trace), request.replay_trace);
  CpdsOptions options = given;
  // The trace's target was read with the trace's abstraction depth (older traces: top-1).
  if (doc.Has("top")) options.top = std::max(options.top, doc.At("top").AsUInt());
  if (options.spec.empty() && options.target.empty() && doc.Has("target")) {
    const std::string& target = doc.At("target").AsString();
    (std::filesystem::exists(target) ? options.spec : options.target) = target;
  }
  const LoadedCpds loaded = LoadCpds(request.model, options);
  const bool deadlock = doc.Has("property") && doc.At("property").AsString() == "deadlock";
  if (!loaded.target && !deadlock) {
    throw InputError({request.replay_trace, 0, 0}, "no target to confirm: give --spec or --target");
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
  const ReplayOutcome done = cpds::ReplayTrace(model, abs, doc, request.model, loaded.target_text);
  return ReplayConfirmed(done, deadlock ? "deadlock" : "target",
                         deadlock ? "" : " (target " + loaded.target_text + ")");
}

// `druba check`: the certificate against the model, by the independent checker (src/check), which
// reads the model itself.
run::Outcome Check(const RunOptions& request, const CpdsOptions& options, const run::Sinks& sinks) {
  check::CheckRequest asked = CheckRequestOf(request, sinks);
  if (options.top_given) asked.top = options.top;
  asked.init = options.init;
  asked.spec = options.spec;
  asked.target = options.target;
  return CheckAnswer(check::CheckModelCertificate(asked));
}

// `druba verify` and `test`: load, run, report.
run::Outcome Verify(const RunOptions& options, const CpdsOptions& cpds_options,
                    const run::Sinks& sinks) {
  const LoadedCpds loaded = LoadCpds(options.model, cpds_options);
  CpdsModel model(loaded.cpds, loaded.init);
  TopKAbstraction abs(model, cpds_options.top, loaded.target);
  abs.SetDeadlock(options.deadlock);
  LimitWatch limits({options.time_limit_s, options.memory_limit_mb}, sinks.interrupted);
  const cpds::CpdsDescriber kind{model, abs};
  const cpds::CpdsHooks hooks{options, cpds_options, loaded.digest,
                              model,   abs,          loaded.target.has_value()};
  run::CountRun run =
      run::RunCount(model, abs, kind, hooks, options, limits, {sinks.progress, "", false});
  return {run::Outcome::Kind::kReport,
          CpdsReport(options, cpds_options, loaded, abs, std::move(run)), "", loaded.warnings};
}

}  // namespace

run::Report CpdsReport(const run::RunOptions& options, const cpds::CpdsOptions& cpds_options,
                       const LoadedCpds& loaded, const cpds::TopKAbstraction& abs,
                       run::CountRun run) {
  run::Report report;
  report.options = options;
  report.runs.push_back(std::move(run));
  const std::uint32_t n = report.last().threads;
  const std::string threads = std::to_string(n);
  report.subject = threads + (n == 1 ? " thread, top-" : " threads, top-") +
                   std::to_string(abs.k()) + " abstraction" +
                   (loaded.target ? ", target " + loaded.target_text : "");
  report.header = {{"threads", n}, {"top", abs.k()}};
  report.trace_header = {
      {"target", loaded.target_text}, {"top", cpds_options.top}, {"digest", loaded.digest}};
  if (!report.last().trace.empty()) {
    report.trace_header["rounds"] = report.last().trace.back().rounds;
    report.trace_header["delays"] = report.last().trace.back().delays;
  }
  report.verdict = report.last().result.verdict;
  report.reason = report.last().result.reason;
  report.warnings = loaded.warnings.size();
  report.time_s = report.last().result.time_s;
  report.svg_title = "druba " + std::string(run::CommandName(options.command)) + " " +
                     options.model + ", top-" + std::to_string(cpds_options.top) + ", " + threads +
                     " threads";
  return report;
}

void CpdsFrontEnd::AddOptions(run::Command command, CLI::Option_group& group) {
  CpdsOptions& o = options_;
  group.add_option("--init", o.init, "initial state file (default: the model's name with .init)");
  auto* spec = group.add_option("--spec", o.spec, "a .spec file naming a target visible state");
  spec->check(NotEmpty());
  group
      .add_option("--target", o.target,
                  "a target visible state 'g|t0,t1,...' ('-' empty stack, '*' anything)")
      ->excludes(spec)
      ->check(NotEmpty());
  if (command == run::Command::kReplay) return;
  if (command == run::Command::kCheck) {
    group
        .add_option_function<std::uint32_t>(
            "--top",
            [&o](std::uint32_t k) {
              o.top = k;
              o.top_given = true;
            },
            "the certificate must be for this K (unless exhaustion proved it: then its K is "
            "exact)")
        ->check(CLI::Range(1, 64));
    return;
  }
  group.add_option("--top", o.top, "K: the abstraction keeps the top K symbols of each stack")
      ->check(CLI::Range(1, 64));
  if (command != run::Command::kVerify) return;
  group
      .add_option("--upper-bound-share", o.upper_bound_share,
                  "without a target, O is computed alongside the exploration with at most this "
                  "share of its successor calls, so that it never slows a run the plateau proof "
                  "answers by much more (default 0.125; a large number computes O first)")
      ->check(CLI::PositiveNumber);
  group.add_option("--max-stack", o.max_stack,
                   "explicit: a stack deeper than this ends the search with 'unknown' "
                   "(default 64)");
}

std::string CpdsFrontEnd::CheckUsage(const run::RunOptions& /*request*/) const {
  return {};
}

run::Outcome CpdsFrontEnd::Run(const run::RunOptions& request, const run::Sinks& sinks) {
  if (request.command == run::Command::kReplay) return Replay(request, options_);
  if (request.command == run::Command::kCheck) return Check(request, options_, sinks);
  return Verify(request, options_, sinks);
}

}  // namespace druba::front
