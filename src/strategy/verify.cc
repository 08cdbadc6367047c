#include "strategy/verify.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "common/diagnostics.h"
#include "drb/parser.h"
#include "invariants/ordered_invariant.h"
#include "predabs/driver_setups.h"
#include "refine/refine.h"
#include "strategy/certificate.h"
#include "strategy/run_hooks.h"
#include "strategy/thread_counts.h"

namespace druba::predabs {
namespace {

// The closure test across thread counts, in the report's words: a section before the verdict,
// and the actions that disrespect the abstraction across counts in place of the last run's.
void AddAllCounts(const Program& program, const AbstractionSpec& spec, std::uint32_t from,
                  const AllCountsResult& all, run::Report& report) {
  std::optional<run::ClosureBreak> closure_break;
  if (all.failure) {
    closure_break = run::ClosureBreak{
        "(" + DescribeAbstract(program, spec, StateView(all.failure->from)) + ")", "",
        "(" + DescribeAbstract(program, spec, StateView(all.failure->to)) + ")"};
  }
  const std::size_t reached = report.runs.empty() || !KeptOf(report.runs.back()).abstract_set
                                  ? 0
                                  : KeptOf(report.runs.back()).abstract_set->size();
  const std::size_t added = all.completed ? all.completed->size() - reached : 0;
  std::vector<std::string> disrespecting;
  for (const ActionClass& c : all.classes) {
    if (c.respects) continue;
    const Statement& st = program.statements[c.stmt];
    disrespecting.push_back(std::string(c.other ? "another thread" : "thread 0") + " executing " +
                            st.label + ": " + st.text +
                            (c.undecided ? " [respect undecided]" : ""));
  }
  run::Section section{"all_thread_counts",
                       {{"from", from},
                        {"closed", all.closed},
                        {"reason", all.reason},
                        {"closure_checks", all.closure_checks},
                        {"added", added},
                        {"solver_queries", all.stats.queries},
                        {"solver_time_s", all.stats.seconds}},
                       fmt::format("  every thread count >= {}: {}{}; {} abstract successors "
                                   "checked, {} solver queries ({:.2f} s)\n",
                                   from, all.closed ? "closed" : "not closed",
                                   added == 0 ? std::string()
                                              : fmt::format(" with {} abstract states added "
                                                            "that no run reached",
                                                            added),
                                   all.closure_checks, all.stats.queries, all.stats.seconds),
                       run::Section::Place::kWhy};
  if (closure_break) {
    section.json["closure_failure"] = run::BreakJson(*closure_break);
    section.text += run::BreakText(*closure_break, "    ");
  }
  report.sections.push_back(std::move(section));
  if (!disrespecting.empty()) {
    report.disrespecting = std::move(disrespecting);
    report.disrespecting_scope = " across thread counts";
  }
  report.next = run::NextAfterClosureBreak();
}

// Refinement's rounds, in the report's words: a section after the verdict, and what to do next
// when it stopped short of a proof.
// `searches_finish`: false when counters grow without bound (GrowingNext), where a larger budget
// for the exact search cannot help.
void AddRefinement(const Refiner& refiner, run::Report& report, bool searches_finish) {
  const RefineFigures& f = refiner.figures();
  const std::string block = refiner.Block();
  const std::string kept = f.added.empty() ? "no predicate kept"
                                           : fmt::format("{} predicate{} kept", f.added.size(),
                                                         f.added.size() == 1 ? "" : "s");
  const std::string dropped =
      f.backtracks == 0 ? "" : fmt::format(", {} dropped again at dead ends", f.backtracks);
  run::Section section{
      "refinement",
      {{"rounds", f.rounds},
       {"candidates", f.candidates},
       {"tests", f.tested},
       {"backtracks", f.backtracks},
       {"solver_queries", f.stats.queries},
       {"solver_time_s", f.stats.seconds},
       {"search_calls", f.search_calls},
       {"replayed_states", f.replayed_states},
       {"added", f.added},
       {"steps", f.round_notes},
       {"stopped", f.stopped},
       {"abstraction", block}},
      fmt::format("refinement: {} round{}, {}{} ({} candidates, {} tests, {} "
                  "solver queries ({:.2f} s); the later rounds' searches: {} "
                  "successor calls, {} states taken on from the round before)\n",
                  f.rounds, f.rounds == 1 ? "" : "s", kept, dropped, f.candidates, f.tested,
                  f.stats.queries, f.stats.seconds, f.search_calls, f.replayed_states),
      run::Section::Place::kDetail};
  // The last few steps (--json has every one).
  const std::size_t shown = std::min<std::size_t>(f.round_notes.size(), 3);
  if (shown < f.round_notes.size()) {
    section.text +=
        fmt::format("  ({} earlier steps: --json lists them)\n", f.round_notes.size() - shown);
  }
  for (std::size_t i = f.round_notes.size() - shown; i < f.round_notes.size(); ++i) {
    section.text += "  " + f.round_notes[i] + "\n";
  }
  if (!f.stopped.empty()) section.text += "  stopped: " + f.stopped + "\n";
  const bool block_shown = !f.added.empty();
  if (block_shown) {
    report.listed = 0;  // the block says more than the lists: those stay in the files and JSON
    section.text += report.verdict == Verdict::kSafe
                        ? "the abstraction that proved it (paste it into the model):\n" + block
                        : "the abstraction refinement ended with:\n" + block;
  }
  report.sections.push_back(std::move(section));
  if (!f.stopped.empty()) {
    report.next =
        "next: refinement stopped (" + f.stopped +
        "); add a predicate that tells the two states of the last closure break apart " +
        (block_shown ? std::string("to the block above and pass its name to --abstraction")
                     : std::string("to an abstraction block in the model (--abstraction "
                                   "NAME picks it)")) +
        (searches_finish ? ", give a larger --exhaust-share or --time-limit to the exact search"
                         : "") +
        ", or hunt for a violation within bounds with `druba test`\n";
  }
}

// What the Horn solver did, in the report's words: why `safe` holds when its invariant proved
// it, else a line after the verdict.
void AddHorn(const HornFigures& horn, run::Report& report) {
  const HornResult& r = horn.result;
  const std::string answer = r.answer == SatResult::kUnsat ? "invariant found"
                             : r.answer == SatResult::kSat ? "a failure derivable"
                                                           : "undecided";
  run::Json json = {{"location_tuples", r.tuples},
                    {"rules", r.rules},
                    {"answer", answer},
                    {"seconds", r.seconds},
                    {"atoms", r.atoms},
                    {"invariant_tuples", r.invariant.size()},
                    {"proved", horn.proved},
                    {"attempt", horn.attempt}};
  if (!r.reason.empty()) json["reason"] = r.reason;
  const std::string form =
      r.form == HornForm::kTuples ? "a relation per location tuple" : "the locations as arguments";
  json["form"] = form;
  std::string text = fmt::format(
      "Horn solver (Spacer): {} location tuples, {} rules ({}): {} in {:.2f} s{}", r.tuples,
      r.rules, form, answer, r.seconds, r.reason.empty() ? "" : " (" + r.reason + ")");
  if (horn.attempt == 2) {
    text += fmt::format(" in a second attempt, after {:.2f} s undecided and refinement",
                        horn.first_seconds);
  }
  if (horn.check) {
    json["check"] = {{"holds", horn.check->holds},
                     {"queries", horn.check->queries},
                     {"seconds", horn.check->seconds}};
    if (!horn.check->holds) json["check"]["why"] = horn.check->why;
  }
  if (horn.proved) {
    report.listed = 0;  // the reached abstract states are not what proves it: their count only
    report.sections.push_back(
        {"horn", json,
         fmt::format("  proof: invariant: one formula for each of the {} location tuples a "
                     "state can reach; the initial state satisfies it, every step keeps it, and "
                     "no failure{} satisfies it ({} queries, {:.2f} s; from the {})\n",
                     r.invariant.size(), report.options.deadlock ? " or deadlock" : "",
                     horn.check->queries, horn.check->seconds, text),
         run::Section::Place::kWhy});
    return;
  }
  if (horn.check) {
    text += "; the invariant read back does not hold: " + horn.check->why;
  } else if (!r.atoms.empty()) {
    text += fmt::format("; its {} atoms went first among refinement's candidates", r.atoms.size());
  }
  report.sections.push_back({"horn", json, text + "\n", run::Section::Place::kDetail});
}

// The invariants from finite instances, in the report's words: a section before the verdict.
run::Section OrderedSection(const OrderedResult& proof, std::uint32_t first,
                            const std::string& block) {
  const OrderedFigures& f = proof.figures;
  run::Json instances = run::Json::array();
  std::string counts;
  for (const OrderedFigures::Instance& i : f.instances) {
    instances.push_back({{"threads", i.threads},
                         {"states", i.states},
                         {"complete", i.complete},
                         {"failed", i.failed}});
    counts +=
        fmt::format("{}{} threads: {} states{}", counts.empty() ? "" : ", ", i.threads, i.states,
                    i.failed     ? " (a thread failed)"
                    : i.complete ? ""
                                 : " (stopped)");
  }
  run::Section section{
      "ordered_invariant",
      {{"instances", instances},
       {"candidates", f.candidates},
       {"given", f.given},
       {"blocking", f.blocking},
       {"blocking_rounds", f.blocking_rounds},
       {"own_states", f.own_states},
       {"dropped", f.dropped},
       {"kept", proof.invariant.size()},
       {"solver_queries", f.queries},
       {"seconds", f.seconds},
       {"reason", proof.reason},
       {"invariant", proof.invariant}},
      fmt::format(
          "  every thread count >= {}: invariants from finite instances ({}): {} "
          "candidates{}{}{}, {} dropped by the checks for every count, {} kept ({} solver "
          "queries, {:.2f} s)\n",
          first, counts, f.candidates,
          f.given == 0 ? "" : fmt::format(" ({} from abstraction {})", f.given, block),
          f.own_states == 0 ? "" : fmt::format(" ({} of own states, a second stage)", f.own_states),
          f.blocking == 0 ? ""
                          : fmt::format(" ({} blocking counterexamples to induction, in "
                                        "{} rounds)",
                                        f.blocking, f.blocking_rounds),
          f.dropped, proof.invariant.size(), f.queries, f.seconds),
      run::Section::Place::kWhy};
  if (proof.verdict == Verdict::kSafe) {
    // The first few formulas (--json and the certificate have them all): a screenful.
    constexpr std::size_t kShown = 6;
    section.text +=
        fmt::format("  the invariant: every thread `self` satisfies each of {} formulas{}\n",
                    proof.invariant.size(),
                    proof.invariant.size() > kShown ? " (--json lists them all), e.g." : "");
    for (std::size_t i = 0; i < std::min(kShown, proof.invariant.size()); ++i) {
      section.text += "    " + proof.invariant[i] + "\n";
    }
  }
  return section;
}

// The verdict for every count: the proof's, in place of the run's at one count (whose report it
// keeps), except that deadlock freedom is never claimed for every count.
void ApplyOrdered(const OrderedResult& proof, const DrbRequest& request, const Program& program,
                  std::uint32_t first, run::Report& report) {
  if (proof.verdict == Verdict::kSafe && (request.options.deadlock || program.check_deadlock)) {
    report.verdict = Verdict::kUnknown;
    report.reason = proof.reason +
                    "; but deadlock freedom is proved for one thread count at a time (by "
                    "exhaustion), not for every count: give --threads N";
  } else if (proof.verdict == Verdict::kSafe) {
    report.verdict = Verdict::kSafe;
    report.reason = proof.reason;
    run::CountRun& run = report.runs.back();
    run.result.verdict = Verdict::kSafe;
    run.result.reason = proof.reason;
    run.result.proof = Proof::kInvariant;
    run.closure_break.reset();
    run.closure_breaks.clear();
    run.disrespecting.clear();
    run.certificate = OrderedCertificate(request.digest, first, proof.invariant);
    run.certificate_note.clear();
    report.next.clear();
    report.listed = 0;
  } else if (proof.verdict == Verdict::kUnknown) {
    report.reason = proof.reason + fmt::format(" (at {} threads alone: {}, {})", first,
                                               VerdictName(report.verdict), report.reason);
    report.verdict = Verdict::kUnknown;
  } else if (report.verdict == Verdict::kViolation) {
    report.reason += fmt::format(", at {} threads", proof.violation_at);
  } else {  // the search of the instance saw a thread fail; the run at that count did not
    report.reason = fmt::format(
        "{} (every state of the instance searched; the run at {} threads "
        "ended {}, so there is no trace: {})",
        proof.reason, proof.violation_at, VerdictName(report.verdict), report.reason);
    report.verdict = Verdict::kViolation;
  }
}

// `--threads N..` on a program that is not symmetric (invariants/ordered_invariant.h): the
// invariants from finite instances, and a run at one count for the report (at the smallest count
// that fails, or at N, whose verdict the proof then replaces).
run::Report VerifyOrdered(const DrbRequest& request, const Program& program,
                          const ThreadCounts& threads, LimitWatch& limits,
                          const StrategyHooks& hooks) {
  const Stopwatch clock;
  // The chosen abstraction block's predicates are candidates too (its tracked locations are not
  // formulas: the candidates state where threads are themselves).
  std::vector<std::string> given;
  const ChosenAbstraction chosen = ChooseAbstraction(program, request.drb.abstraction, threads);
  if (chosen.block != nullptr) {
    for (const Predicate& p : chosen.block->predicates) {
      given.push_back(ExprToString(program, *p.expr));
    }
  }
  const OrderedResult proof =
      ProveEveryOrderedCount(request.source, program, threads.first,
                             std::min(threads.last, threads.first + kOrderedInstances),
                             request.drb.solver_timeout_ms, &limits, given);
  DrbOptions drb = request.drb;
  drb.threads =
      std::to_string(proof.verdict == Verdict::kViolation ? proof.violation_at : threads.first);
  if (proof.verdict != Verdict::kViolation) {  // the proof answers: the run is for the report
    drb.refine = false;
    drb.horn = HornUse::kOff;
  }
  run::Report report =
      VerifyReport({request.options, drb, request.source, request.digest}, program, limits, hooks);
  report.header["threads"] = threads.Text();
  report.subject = "threads " + threads.Text() + ", invariants from finite instances";
  if (proof.verdict != Verdict::kViolation) {
    // The proof answers: the run's abstract states and actions say nothing of it.
    report.list_abstract = false;
    report.run_scope = fmt::format(" of the run at {} threads", threads.first);
  }
  ApplyOrdered(proof, request, program, threads.first, report);
  report.sections.insert(report.sections.begin(),
                         OrderedSection(proof, threads.first, chosen.spec().name));
  report.time_s = clock.Seconds();
  return report;
}

// For an `unknown`: the counters that grow without bound in the states the last run reached
// (those whose magnitude went past every bounded use: 16, and 4 per thread), largest first, and
// what would help: no search finishes on them, so a larger --exhaust-share or --time-limit does
// not; a predicate relating them (or on the one) lets the abstraction forget their values.
std::string GrowingNext(const Program& program, const run::CountRun& last) {
  const std::vector<std::uint64_t> largest = KeptOf(last).largest;
  if (largest.empty()) return "";
  const std::uint64_t bound = std::max<std::uint64_t>(16, std::uint64_t{4} * last.threads);
  std::vector<std::pair<std::uint64_t, std::string>> growing;
  for (std::size_t v = 0; v < largest.size(); ++v) {
    const Variable& var =
        v < program.shared.size() ? program.shared[v] : program.locals[v - program.shared.size()];
    if (var.type != drb::Type::kBool && largest[v] >= bound) {
      growing.emplace_back(largest[v], var.name);
    }
  }
  if (growing.empty()) return "";
  std::sort(growing.begin(), growing.end(), std::greater<>());
  if (growing.size() > 3) growing.resize(3);
  std::vector<std::string> named;
  named.reserve(growing.size());
  for (const auto& [value, name] : growing) {
    named.push_back(fmt::format(
        "{} (up to {})", name,
        value >= (std::uint64_t{1} << 30) ? std::string("2^30 and more") : std::to_string(value)));
  }
  const std::string one = growing[0].second;
  const std::string hint =
      growing.size() == 1
          ? fmt::format(
                "a predicate on {} that tells the states of the closure break apart "
                "(its residue, or a bound that holds: `{} <= K`)",
                one, one)
          : fmt::format(
                "a predicate that relates them (for example on `{} - {}`), which lets the "
                "abstraction forget their values",
                one, growing[1].second);
  return fmt::format(
      "next: {} {} without bound in the states reached, so the exact search cannot "
      "finish and a larger --exhaust-share or --time-limit will not help; give the "
      "abstraction {}, or hunt for a violation within bounds with `druba test`\n",
      fmt::join(named, " and "), growing.size() == 1 ? "grows" : "grow", hint);
}

// What the report adds to the last count's run: the certificate of a proof for every count, the
// closure across counts, the Horn solver's and refinement's sections.
void AddFindings(const Verified& verified, const std::string& digest, const ThreadCounts& threads,
                 const Program& final_program, const AbstractionSpec& spec, run::Report& report) {
  const ThreadCountsResult& counts = verified.round.counts;
  const std::optional<Refiner>& refiner = verified.refiner;
  if (threads.every_count_from_first && report.verdict == Verdict::kSafe) {
    // The set the closure across counts was decided for (the last count's, equal to the one
    // before it).
    run::CountRun& last_run = report.runs.back();
    last_run.certificate = PredicatesCertificate(
        {digest, threads.first, true, false, "every-count", &final_program, &spec,
         counts.all && counts.all->completed ? counts.all->completed.get()
                                             : KeptOf(last_run).abstract_set.get()});
  }
  if (counts.all) AddAllCounts(final_program, spec, threads.first, *counts.all, report);
  if (verified.round.horn) AddHorn(*verified.round.horn, report);
  const std::string growing =
      report.verdict == Verdict::kUnknown ? GrowingNext(final_program, report.last()) : "";
  if (refiner && (refiner->figures().rounds > 1 || !refiner->figures().stopped.empty() ||
                  counts.verdict == Verdict::kUnknown)) {
    AddRefinement(*refiner, report, growing.empty());
  }
  report.next = growing + report.next;
}

// The verdict of the counts run. Deadlock freedom is proved per count, by exhaustion; the closure
// test across counts does not decide it, so it is never claimed for every count.
Finding VerdictOf(const ThreadCountsResult& counts, bool deadlock_every_count,
                  const ThreadCounts& threads, std::uint32_t last_count) {
  Finding verdict{counts.verdict, counts.reason};
  if (deadlock_every_count && verdict.verdict != Verdict::kViolation) {
    verdict = {Verdict::kUnknown,
               "deadlock freedom is proved for one thread count at a time (by exhaustion), not "
               "for every count: give --threads N (the assertions, for every count: " +
                   (verdict.verdict == Verdict::kSafe ? std::string("safe") : verdict.reason) +
                   ")"};
  }
  if (verdict.verdict == Verdict::kViolation && threads.every_count_from_first) {
    verdict.reason += ", at " + std::to_string(last_count) + " threads";
  }
  return verdict;
}

// The abstraction's route: the rounds of the strategy at each count, the closure across counts and
// refinement (a symmetric program, for every count), or one count.
run::Report VerifyByAbstraction(const DrbRequest& request, const Program& program,
                                const ThreadCounts& threads, const ChosenAbstraction& chosen,
                                LimitWatch& limits, const StrategyHooks& hooks) {
  const run::RunOptions& options = request.options;
  const Stopwatch clock;
  // Deadlock freedom for every count is never claimed (below): the proofs that could only make
  // the assertions' part safe (refinement, the Horn solver) are not run for it; the counts are,
  // for the violations they find.
  const bool deadlock_every_count = options.deadlock && threads.every_count_from_first;
  DrbOptions counts_only = request.drb;
  if (deadlock_every_count) {
    counts_only.refine = false;
    counts_only.horn = HornUse::kOff;
  }
  const DrbRequest asked{options, counts_only, request.source, request.digest};
  // An `unknown` is reported as the first round found it (with the exact search that went on),
  // and the refinement section says how far refinement got.
  Verified verified = Verify(asked, program, chosen, threads, limits, hooks);
  const Program& final_program = verified.program(program);
  const AbstractionSpec& spec = verified.spec(chosen.spec());
  const ThreadCountsResult& counts = verified.round.counts;
  run::Report report;
  report.options = options;
  report.runs = std::move(verified.round.runs);
  report.subject = "threads " + threads.Text() + ", abstraction " + spec.name;
  report.header = {{"threads", threads.Text()}, {"abstraction", spec.name}};
  report.per_count = true;
  report.list_abstract = true;
  report.trace_header = {{"digest", request.digest}};  // replay tells another model apart
  const Finding verdict = VerdictOf(counts, deadlock_every_count, threads, report.last().threads);
  report.verdict = verdict.verdict;
  report.reason = verdict.reason;
  AddFindings(verified, request.digest, threads, final_program, spec, report);
  report.time_s = clock.Seconds();
  report.svg_title = "druba " + std::string(run::CommandName(options.command)) + " " +
                     options.model + ", " + std::to_string(report.last().threads) +
                     " threads, abstraction " + spec.name;
  return report;
}

// Whether a report answers (safe or a violation).
bool Answers(const run::Report& report) {
  return report.verdict != Verdict::kUnknown;
}

// One route tried before the one that answered, for the report: its verdict was unknown.
struct Tried {
  std::string route;  // as the report names it
  std::string reason;
  double seconds = 0;
};

// The routes tried before, in the report's words: lines with the verdict and `tried_routes`.
void AddTried(const std::vector<Tried>& tried, run::Report& report) {
  if (tried.empty()) return;
  run::Json list = run::Json::array();
  std::string text;
  for (const Tried& t : tried) {
    list.push_back({{"route", t.route}, {"reason", t.reason}, {"time_s", t.seconds}});
    text += fmt::format("  {} {} ended unknown after {:.1f} s ({})\n",
                        text.empty() ? "first" : "then", t.route, t.seconds, t.reason);
  }
  report.sections.insert(report.sections.begin(),
                         run::Section{"tried_routes", list, text, run::Section::Place::kWhy});
}

// `--threads N..` on a symmetric program, route auto (docs/drb.md): the abstraction with
// refinement first, with a sixth of the time (30 s at most), which answers the protocols it fits
// without costing the others more than that share; then the invariants from finite instances with
// the rest (they prove the lock-protected counters that refinement unrolls without end); when those
// end unknown early and refinement had only stopped at its share, refinement again with what is
// left. Each goes on only while the run's own limits and no signal stop it.
run::Report VerifyEveryCountAuto(const DrbRequest& request, const Program& program,
                                 const ThreadCounts& threads, const ChosenAbstraction& chosen,
                                 LimitWatch& limits, const StrategyHooks& hooks) {
  const bool may_follow = request.options.command == run::Command::kVerify &&
                          !request.options.deadlock && request.drb.refine;
  if (!may_follow) return VerifyByAbstraction(request, program, threads, chosen, limits, hooks);
  const Stopwatch clock;
  std::vector<Tried> tried;
  const std::string abstraction = "the abstraction " + chosen.spec().name + " with refinement";
  const auto finish = [&](run::Report report) {
    AddTried(tried, report);
    report.time_s = clock.Seconds();
    return report;
  };
  bool cut_short = false;  // refinement stopped at its share of the time, not at a dead end
  run::Report first = [&] {
    LimitWatch share = limits.Share(kAbstractionRouteShare, kAbstractionRouteMostS);
    run::Report r = VerifyByAbstraction(request, program, threads, chosen, share, hooks);
    cut_short = share.Check().has_value();
    return r;
  }();
  if (Answers(first) || limits.Check()) return finish(std::move(first));
  tried.push_back({abstraction, first.reason, first.time_s});
  run::Report second = VerifyOrdered(request, program, threads, limits, hooks);
  if (Answers(second) || limits.Check() || !cut_short) return finish(std::move(second));
  tried.push_back({"invariants from finite instances", second.reason, second.time_s});
  return finish(VerifyByAbstraction(request, program, threads, chosen, limits, hooks));
}

}  // namespace

run::Report VerifyReport(const DrbRequest& request, const Program& program, LimitWatch& limits,
                         const StrategyHooks& hooks) {
  const run::RunOptions& options = request.options;
  // `druba test` explores one count: a program for every count from N (`* N..`) at N.
  const bool one = options.command == run::Command::kTest && request.drb.threads.empty();
  const ThreadCounts threads =
      ParseThreadCounts(one ? std::to_string(program.NumThreads()) : request.drb.threads, program,
                        request.drb.max_threads);
  const EveryCountRoute route = request.drb.route;
  if (threads.every_count_from_first && options.command == run::Command::kTest) {
    throw InputError({"--threads", 0, 0}, "druba test explores one thread count; give --threads N");
  }
  if (threads.every_count_from_first && route == EveryCountRoute::kAbstraction &&
      !program.symmetric) {
    throw InputError(
        {"--route", 0, 0},
        "the route `abstraction` proves every thread count of a "
        "symmetric program only, and this one is not (" +
            (program.templates.size() > 1 ? std::string("its threads run several templates")
                                          : program.asymmetric_what + " at line " +
                                                std::to_string(program.asymmetric_at.line)) +
            "); --route instances or auto proves it by invariants from finite "
            "instances");
  }
  if (threads.every_count_from_first &&
      (!program.symmetric || route == EveryCountRoute::kInstances)) {
    CheckCountsForEveryCount(program, {});
    return VerifyOrdered(request, program, threads, limits, hooks);
  }
  const ChosenAbstraction chosen = ChooseAbstraction(program, request.drb.abstraction, threads);
  if (threads.every_count_from_first) CheckCountsForEveryCount(program, chosen.spec());
  if (threads.every_count_from_first && route == EveryCountRoute::kAuto) {
    return VerifyEveryCountAuto(request, program, threads, chosen, limits, hooks);
  }
  return VerifyByAbstraction(request, program, threads, chosen, limits, hooks);
}

}  // namespace druba::predabs
