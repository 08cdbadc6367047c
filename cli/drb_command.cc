#include "cli/drb_command.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/drb_check.h"
#include "check/drb_explicit.h"
#include "cli/deliver.h"
#include "common/digest.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "predabs/describe.h"
#include "predabs/describer.h"
#include "predabs/model.h"
#include "predabs/parser.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/refine.h"
#include "predabs/replay.h"
#include "predabs/strategy.h"
#include "predabs/thread_counts.h"
#include "run/run_count.h"

namespace druba::cli {
namespace {

using predabs::IntModel;
using predabs::PredicateAbstraction;
using run::RunOptions;

// DRUBA_DEBUG_SOLVER=1 in the environment: every solver query and model on stderr (docs/drb.md).
const predabs::SolverLog* SolverLogFromEnvironment() {
  static const predabs::SolverLog log = [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
  };
  return std::getenv("DRUBA_DEBUG_SOLVER") != nullptr ? &log : nullptr;
}

// DRUBA_DEBUG_REFINE=1: every candidate, break, choice and dead end of refinement on stderr.
const predabs::SolverLog* RefineLogFromEnvironment() {
  static const predabs::SolverLog log = [](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
  };
  return std::getenv("DRUBA_DEBUG_REFINE") != nullptr ? &log : nullptr;
}

// The closure test across thread counts, in the report's words.
run::AllCounts DescribeAllCounts(const predabs::Program& program,
                                 const predabs::AbstractionSpec& spec, std::uint32_t from,
                                 const predabs::AllCountsResult& all) {
  run::AllCounts out{from,
                     all.closed,
                     all.reason,
                     all.closure_checks,
                     {all.stats.queries, all.stats.seconds},
                     std::nullopt,
                     {}};
  if (all.failure) {
    out.closure_break = run::ClosureBreak{
        "(" + predabs::DescribeAbstract(program, spec, StateView(all.failure->from)) + ")", "",
        "(" + predabs::DescribeAbstract(program, spec, StateView(all.failure->to)) + ")"};
  }
  for (const predabs::ActionClass& c : all.classes) {
    if (c.respects) continue;
    const predabs::Statement& st = program.statements[c.stmt];
    out.disrespecting.push_back(std::string(c.other ? "another thread" : "thread 0") +
                                " executing " + st.label + ": " + st.text +
                                (c.undecided ? " [respect undecided]" : ""));
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

// `druba check MODEL.drb --certificate FILE`, by the independent checker (src/check).
int Check(const RunOptions& options, const std::string& source) {
  const JsonValue doc = ParseJson(ReadFile(options.certificate), options.certificate);
  const bool explicit_states = doc.Has("kind") && doc.At("kind").kind == JsonValue::Kind::kString &&
                               doc.At("kind").text == "drb explicit";
  if (!options.threads.empty()) {
    const bool every = doc.Has("every_count") && doc.At("every_count").AsBool();
    const std::string count = std::to_string(doc.At("threads").AsUInt());
    if (count + (every ? ".." : "") != options.threads) {
      return cli::OptionDisagrees(
          "--threads " + options.threads,
          every ? "for every thread count from " + count : "for " + count + " threads");
    }
  }
  if (options.deadlock && !doc.At("deadlock").AsBool()) {
    return cli::OptionDisagrees("--deadlock", "not one of deadlock freedom");
  }
  const std::string digest = ContentDigest({source});
  const check::CheckResult r =
      explicit_states ? check::CheckDrbExplicitCertificate(doc, digest, source, options.model)
                      : check::CheckDrbCertificate(doc, digest, source, options.model);
  return PrintCheck(r);
}

run::Refinement DescribeRefinement(const predabs::Refiner& refiner) {
  const predabs::RefineFigures& f = refiner.figures();
  run::Refinement out;
  out.rounds = f.rounds;
  out.candidates = f.candidates;
  out.tested = f.tested;
  out.backtracks = f.backtracks;
  out.solver = {f.stats.queries, f.stats.seconds};
  out.steps = f.round_notes;
  out.added = f.added;
  out.stopped = f.stopped;
  out.block = refiner.Block();
  return out;
}

}  // namespace

int RunDrb(const RunOptions& given, const std::atomic<bool>* interrupted) {
  const std::string source = ReadFile(given.model);
  const predabs::Program program = predabs::ParseProgram(source, given.model);
  RunOptions options = given;
  options.deadlock = options.deadlock || program.check_deadlock;  // `check deadlock;`
  options.model_digest = ContentDigest({source});
  if (options.command == run::Command::kReplay) return Replay(options, program);
  if (options.command == run::Command::kCheck) return Check(options, source);
  const predabs::ThreadCounts threads =
      predabs::ParseThreadCounts(options.threads, program, options.max_threads);
  const predabs::ChosenAbstraction chosen =
      predabs::ChooseAbstraction(program, options.abstraction, threads);
  if (threads.every_count_from_first && options.command == run::Command::kTest) {
    throw InputError({"--threads", 0, 0}, "druba test explores one thread count; give --threads N");
  }
  LimitWatch limits({options.time_limit_s, options.memory_limit_mb}, interrupted);
  const Stopwatch clock;
  std::optional<predabs::Refiner> refiner;
  bool refined = false;
  // An `unknown` is reported as the first round found it (with the exact search that went on),
  // and the refinement section says how far refinement got.
  predabs::Round round = predabs::Verify(
      options, source, program, chosen, threads, limits,
      {SolverLogFromEnvironment(), RefineLogFromEnvironment(), StderrProgress(options)}, refiner,
      &refined);
  const predabs::Program& final_program = refined ? refiner->program() : program;
  const predabs::AbstractionSpec& spec = refined ? refiner->spec() : chosen.spec();
  const predabs::ThreadCountsResult& counts = round.counts;
  run::Report report;
  report.options = &options;
  report.runs = std::move(round.runs);
  if (refiner && (refiner->figures().rounds > 1 || !refiner->figures().stopped.empty() ||
                  counts.verdict == Verdict::kUnknown)) {
    report.refinement = DescribeRefinement(*refiner);
  }
  report.subject = "threads " + threads.Text() + ", abstraction " + spec.name;
  report.header = {{"threads", threads.Text()}, {"abstraction", spec.name}};
  report.per_count = true;
  report.list_abstract = true;
  // Deadlock freedom is proved per count, by exhaustion; the closure test across counts does not
  // decide it, so it is never claimed for every count.
  Finding verdict{counts.verdict, counts.reason};
  if (options.deadlock && threads.every_count_from_first) {
    verdict = Combine(verdict, {Verdict::kUnknown,
                                "deadlock freedom is proved for one thread count at a time (by "
                                "exhaustion), not for every count: give --threads N"});
  }
  if (verdict.verdict == Verdict::kViolation && threads.every_count_from_first) {
    verdict.reason += ", at " + std::to_string(report.last().threads) + " threads";
  }
  report.verdict = verdict.verdict;
  report.reason = verdict.reason;
  if (threads.every_count_from_first && verdict.verdict == Verdict::kSafe) {
    // The set the closure across counts was decided for (the last count's, equal to the one
    // before it).
    run::CountRun& last_run = report.runs.back();
    last_run.certificate = predabs::PredicatesCertificate(
        {options.model_digest, threads.first, true, false, "every-count", &final_program, &spec,
         last_run.abstract_set.get()});
  }
  if (counts.all) report.all = DescribeAllCounts(final_program, spec, threads.first, *counts.all);
  report.time_s = clock.Seconds();
  report.svg_title = "druba " + std::string(run::CommandName(options.command)) + " " +
                     options.model + ", " + std::to_string(report.last().threads) +
                     " threads, abstraction " + spec.name;
  return Deliver(report);
}

}  // namespace druba::cli
