#include "front/drb.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "c/translate.h"
#include "check/request.h"
#include "common/digest.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "drb/parser.h"
#include "front/answer.h"
#include "interp/replay.h"
#include "strategy/verify.h"

namespace druba::front {
namespace {

using predabs::DrbOptions;
using run::RunOptions;

// `druba replay MODEL.drb --trace FILE`: re-execute a saved trace slot by slot.
run::Outcome Replay(const RunOptions& request, const drb::Program& program,
                    const std::string& source) {
  const JsonValue doc = ParseJson(ReadFile(request.replay_trace), request.replay_trace);
  const ReplayOutcome done = ReplayNaming(doc, request, ContentDigest({source}), [&] {
    return predabs::ReplayTrace(program, doc, request.replay_trace);
  });
  return ReplayConfirmed(done, doc.At("property").AsString());
}

// `druba check MODEL.drb --certificate FILE`, by the independent checker (src/check), which reads
// the model itself.
run::Outcome Check(const RunOptions& request, const DrbOptions& options, const run::Sinks& sinks) {
  check::CheckRequest asked = CheckRequestOf(request, sinks);
  asked.threads = options.threads;
  return CheckAnswer(check::CheckModelCertificate(asked));
}

}  // namespace

void DrbFrontEnd::AddOptions(run::Command command, CLI::Option_group& group) {
  DrbOptions& o = options_;
  if (command == run::Command::kReplay) return;
  if (command == run::Command::kCheck) {
    group.add_option("--threads", o.threads,
                     "N or N..: the certificate must be for that count, or for every count from N");
    return;
  }
  group.add_option("--threads", o.threads,
                   "N threads, or N.. for every thread count from N (default: the file's)");
  group.add_option("--abstraction", o.abstraction,
                   "which abstraction block to use (default: the first)");
  group.add_option("--solver-timeout", o.solver_timeout_ms,
                   "milliseconds per solver query; a timeout makes the verdict 'unknown' "
                   "(default 20000)");
  group
      .add_option(
          "--refine", o.refine,
          "verify: when the closure test fails, add a predicate taken from the program that "
          "removes the break and verify again (on, the default); off: the abstraction as given, "
          "the paper's algorithm alone (no Horn invariant either: --horn). A proof prints the "
          "abstraction that proved it as a block to paste")
      ->check(CLI::IsMember({"on", "off"}));
  max_threads_.push_back(
      group.add_option("--max-threads", o.max_threads,
                       "with --threads N..: the largest thread count to try (default 8)"));
  if (command != run::Command::kVerify) return;
  const std::map<std::string, predabs::HornUse> horn_uses = {{"both", predabs::HornUse::kBoth},
                                                             {"proof", predabs::HornUse::kProof},
                                                             {"atoms", predabs::HornUse::kAtoms},
                                                             {"off", predabs::HornUse::kOff}};
  group
      .add_option_function<std::string>(
          "--horn", [&o, horn_uses](const std::string& value) { o.horn = horn_uses.at(value); },
          "at one thread count, when the first round ends unknown: ask a Horn solver (Z3's "
          "Spacer) for an inductive invariant, and use it as a proof of its own, checked "
          "(proof), give its atoms to refinement as candidates (atoms), both (the default: the "
          "proof first) or neither (off)")
      ->check(CLI::IsMember({"both", "proof", "atoms", "off"}));
  group
      .add_option("--reuse-search", o.reuse_searches,
                  "refinement: each round goes on from the Round-Robin search of the round before "
                  "(the program is the same, only the abstraction grew) instead of searching "
                  "again (on, the default); off: every round searches from the start")
      ->check(CLI::IsMember({"on", "off"}));
  const std::map<std::string, predabs::EveryCountRoute> routes = {
      {"auto", predabs::EveryCountRoute::kAuto},
      {"abstraction", predabs::EveryCountRoute::kAbstraction},
      {"instances", predabs::EveryCountRoute::kInstances}};
  group
      .add_option_function<std::string>(
          "--route", [&o, routes](const std::string& value) { o.route = routes.at(value); },
          "with --threads N..: how every thread count is proved. abstraction: the closure "
          "across counts with refinement (symmetric programs); instances: invariants from "
          "finite instances (any program of one template); auto (the default): on a symmetric "
          "program, the abstraction with a sixth of the time (30 s at most), then the "
          "instances, then the abstraction again if the instances end unknown early")
      ->check(CLI::IsMember({"auto", "abstraction", "instances"}));
  group.add_option("--max-value", o.max_value,
                   "explicit: a variable beyond +-this ends the search with 'unknown' "
                   "(default 100)");
}

// What CLI11 cannot judge alone: --max-threads bounds --threads N.., whose proof compares N and
// N + 1 threads at least; the static relation of --upper-bound is the CPDS kind's.
std::string DrbFrontEnd::CheckUsage(const RunOptions& request) const {
  if (request.upper_bound == run::UpperBound::kStatic) {
    return "--upper-bound static: the static relation is for CPDS models (a .drb model's upper "
           "bound is the all-SAT post: --upper-bound joint)";
  }
  bool given = false;
  for (const CLI::Option* option : max_threads_) given = given || option->count() > 0;
  if (!given) return "";
  const std::string& threads = options_.threads;
  if (!threads.ends_with("..")) {
    return "--max-threads: it bounds --threads N.. (every thread count from N), and --threads " +
           (threads.empty() ? std::string("is not given") : "is " + threads);
  }
  const std::string digits = threads.substr(0, threads.size() - 2);
  if (digits.empty() || digits.size() > 4 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return "";  // --threads itself is refused, with its own message
  }
  const auto first = static_cast<std::uint32_t>(std::stoul(digits));
  if (options_.max_threads > first) return "";
  return "--max-threads: " + std::to_string(options_.max_threads) + " is below " +
         std::to_string(first + 1) + ": --threads " + threads + " compares " +
         std::to_string(first) + " and " + std::to_string(first + 1) + " threads at least";
}

run::Outcome DrbFrontEnd::Run(const RunOptions& request, const run::Sinks& sinks) {
  if (request.command == run::Command::kCheck) return Check(request, options_, sinks);
  const std::string source = c::ModelSource(request.model);
  const drb::Program program = drb::ParseProgram(source, request.model);
  RunOptions options = request;
  options.deadlock = options.deadlock || program.check_deadlock;  // `check deadlock;`
  if (options.command == run::Command::kReplay) return Replay(options, program, source);
  LimitWatch limits({options.time_limit_s, options.memory_limit_mb}, sinks.interrupted);
  const predabs::SolverLog solver_log = sinks.solver_log;
  const predabs::SolverLog refine_log = sinks.refine_log;
  const predabs::DrbRequest drb_request{options, options_, source, ContentDigest({source})};
  predabs::StrategyHooks hooks;
  hooks.solver_log = solver_log ? &solver_log : nullptr;
  hooks.refine_log = refine_log ? &refine_log : nullptr;
  hooks.progress = sinks.progress;
  std::vector<std::string> warnings;
  if (request.model.ends_with(".c")) {  // docs/c.md: said on every run, never silently
    warnings.emplace_back(
        "C's signed integers are read as unbounded integers (docs/c.md): a run that needs a "
        "signed overflow (undefined in C) or a narrowing conversion is not one druba explores; "
        "unsigned arithmetic wraps as in ILP32");
  }
  return {run::Outcome::Kind::kReport, predabs::VerifyReport(drb_request, program, limits, hooks),
          "", std::move(warnings)};
}

}  // namespace druba::front
