#include "strategy/strategy.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "drb/ordered.h"
#include "interp/model.h"
#include "invariants/horn.h"
#include "invariants/ordered_invariant.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/report_words.h"
#include "run/progress.h"
#include "strategy/run_hooks.h"

namespace druba::predabs {
namespace {

// A round's runs hand their searches on to the next round's (run::RunCount calls the hooks only
// when they fit the concept: say so here, where a mistake would silently switch reuse off).
static_assert(run::SearchHandOn<DrbHooks, PlateauDriver<IntModel, PredicateAbstraction>>);

run::CountRun RunOne(const DrbRequest& request, const Program& program, const AbstractionSpec& spec,
                     std::uint32_t n, LimitWatch& limits, bool fixed_count,
                     const StrategyHooks& hooks, SearchCache* cache) {
  IntModel model(program, n);
  model.SetLimits(&limits);
  PredicateAbstraction abs(model, spec, request.drb.solver_timeout_ms);
  abs.SetLimits(&limits);
  if (hooks.solver_log != nullptr) abs.SetSolverLog(*hooks.solver_log);
  const DrbDescriber kind{program, model, abs};
  const DrbHooks kind_hooks{request.options, request.drb, request.digest, program,
                            model,           abs,         fixed_count,    cache};
  return run::RunCount(model, abs, kind, kind_hooks, request.options, limits,
                       {hooks.progress, "threads=" + std::to_string(n) + " ", true});
}

// After an `unknown` round: refine at its closure break (false: nothing more to try).
bool RefineAfter(const Round& round, const ThreadCounts& threads, Refiner& refiner,
                 LimitWatch& limits) {
  if (round.counts.verdict != Verdict::kUnknown || limits.Check()) return false;
  const run::CountRun& last = round.runs.back();
  const DrbKept kept = KeptOf(last);
  if (!kept.abstract_set) return false;
  const bool across = round.counts.all && round.counts.all->failure;
  const std::optional<ClosureFailure>& failure =
      across ? round.counts.all->failure : last.result.closure_failure;
  if (!failure || !failure->undecided.empty()) return false;
  // The reached set, not the completion's grown one: its added states are not known to be
  // harmless when the completion failed (refinement tested candidates against them from 93fa818
  // to here, and sense-barrier's counting pair no longer removed its break).
  return refiner.Refine({*failure, *kept.abstract_set,
                         across ? std::nullopt : std::optional<std::uint32_t>(last.threads),
                         threads.first, kept.concrete_sample.get(), last.threads},
                        &limits);
}

// Refines from `round` (run with the refiner's first abstraction) until a round decides or the
// refiner has nothing left to try; returns the last round.
Round Refine(const DrbRequest& request, const ThreadCounts& threads, Refiner& refiner, Round round,
             LimitWatch& limits, const StrategyHooks& hooks) {
  // The exact search after a failed closure test does not depend on the abstraction: once it has
  // failed to exhaust the state space, later rounds skip it.
  run::RunOptions later = request.options;
  const DrbRequest later_request{later, request.drb, request.source, request.digest};
  while (RefineAfter(round, threads, refiner, limits) || refiner.Backtrack()) {
    for (const run::CountRun& run : round.runs) {
      if (run.result.verdict == Verdict::kUnknown && run.result.closure_failure) {
        later.exhaust_share = 0;
      }
    }
    refiner.CountRound();
    round = RunRound(later_request, refiner.program(), refiner.spec(), threads, limits, hooks);
    for (const run::CountRun& run : round.runs) {
      refiner.CountSearch(run.result.image_calls, run.result.replayed_states);
    }
  }
  return round;
}

// Refinement (verify, mode druba) after a first round that ended `unknown`: each round is a whole
// run with a finer abstraction. A symmetric program without an abstraction block is refined first
// from thread 0's location alone (as for every count: the closure test then knows that every
// thread's view is reached), then, if that fails, from every thread's location. Returns the last
// round refinement ran (none when it does not apply); `refiner` is left set when it ran.
std::optional<Round> RefineAfterFirst(const DrbRequest& request, const Program& program,
                                      const ChosenAbstraction& chosen, const ThreadCounts& threads,
                                      const Round& first, std::optional<Refiner>& refiner,
                                      LimitWatch& limits, const StrategyHooks& hooks) {
  std::optional<Round> round;
  const run::RunOptions& options = request.options;
  if (!request.drb.refine || options.command != run::Command::kVerify ||
      options.mode != Mode::kDruba || first.counts.verdict != Verdict::kUnknown) {
    return round;
  }
  // At one thread count, the atoms of a Horn solver's invariant go first among the candidates.
  std::vector<std::string> horn;
  if (first.horn && (request.drb.horn == HornUse::kAtoms || request.drb.horn == HornUse::kBoth)) {
    horn = first.horn->result.atoms;
  }
  if (chosen.block == nullptr && program.symmetric && !threads.every_count_from_first) {
    ThreadCounts symmetric = threads;
    symmetric.every_count_from_first = true;
    const ChosenAbstraction own = ChooseAbstraction(program, "", symmetric);
    refiner.emplace(request.source, program, own.spec(), false, request.drb.solver_timeout_ms,
                    kMaxRounds / 4, hooks.refine_log, horn);
    round = Refine(request, threads, *refiner,
                   RunRound(request, program, own.spec(), threads, limits, hooks), limits, hooks);
  }
  if ((!round || round->counts.verdict == Verdict::kUnknown) && !limits.Check()) {
    const std::uint32_t spent = refiner ? refiner->figures().rounds : 0;  // the first attempt's
    refiner.emplace(request.source, program, chosen.spec(), threads.every_count_from_first,
                    request.drb.solver_timeout_ms, kMaxRounds, hooks.refine_log, horn);
    for (std::uint32_t r = 0; r < spent; ++r) refiner->CountRound();
    round = Refine(request, threads, *refiner, first, limits, hooks);
  }
  return round;
}

// Makes the one-count round `first` a `safe` by an inductive invariant (proof: invariant), with
// `reason` and the invariant's certificate.
void ProvedByInvariant(Round& first, const std::string& reason, std::string certificate) {
  first.counts.verdict = Verdict::kSafe;
  first.counts.reason = reason;
  run::CountRun& run = first.runs.back();
  run.result.verdict = Verdict::kSafe;
  run.result.reason = reason;
  run.result.proof = Proof::kInvariant;
  run.result.closure_failure.reset();
  run.closure_break.reset();
  run.closure_breaks.clear();
  run.disrespecting.clear();  // the invariant does not rest on the abstraction
  run.certificate = std::move(certificate);
  run.certificate_note.clear();
}

// After a first round that ended `unknown` at one thread count (verify, mode druba): asks the
// Horn solver for an invariant (first.horn) and, when it is a proof (checked, HornUse allowing),
// makes `first` a `safe` by it and returns true.
bool TryHorn(const DrbRequest& request, const Program& program, const ThreadCounts& threads,
             Round& first, LimitWatch& limits, const StrategyHooks& hooks, bool second = false) {
  const run::RunOptions& options = request.options;
  if (request.drb.horn == HornUse::kOff || !request.drb.refine ||
      options.command != run::Command::kVerify || options.mode != Mode::kDruba ||
      first.counts.verdict != Verdict::kUnknown || threads.every_count_from_first ||
      limits.Check()) {
    return false;
  }
  const std::uint32_t n = threads.first;
  // Its share: kHornTimeoutMs, or with a time limit a quarter of what it leaves when that is
  // more, and never more than half. A second attempt, when nothing else is left to try, gets
  // kHornSecondShare times as long, or what the time limit leaves.
  const double fixed = request.drb.horn_share_ms / 1000.0;
  const double left = std::max(0.0, limits.RemainingSeconds());
  // (The command line's default limit is not the user's: the shares stay as without one.)
  const bool limited = options.time_limit_s > 0 && !options.time_limit_default;
  const double seconds = second    ? (limited ? left : kHornTimeoutMs / 1000.0 * kHornSecondShare)
                         : limited ? std::min(left / 2, std::max(fixed, left / 4))
                                   : fixed;
  const auto share = static_cast<unsigned>(seconds * 1000);
  const double before = first.horn ? first.horn->result.seconds : 0;
  HornFigures& horn = first.horn.emplace();
  horn.attempt = second ? 2 : 1;
  horn.first_seconds = before;
  // --progress: a line about once a second while the solver works (its stop test polls the
  // limits, which call the progress line when it is due).
  if (hooks.progress) {
    limits.SetProgress(
        [&limits, sink = hooks.progress, n, share, start = limits.clock().Seconds()] {
          const double now = limits.clock().Seconds();
          sink(
              fmt::format("druba: {:6.1f} s  threads={} Horn solver (Spacer): {:.1f} s of its "
                          "{:.0f} s share  {:.0f} MB",
                          now, n, now - start, share / 1000.0, CurrentRssMb()));
        },
        1.0);
  }
  horn.result =
      SolveHornEitherForm(program, n, options.deadlock, share, run::JobsFromOption(options.jobs),
                          [&limits] { return limits.Check().has_value(); });
  run::StopProgress(limits);
  const HornResult& found = horn.result;
  if (hooks.refine_log != nullptr && *hooks.refine_log) {
    (*hooks.refine_log)(fmt::format(
        "druba: refine: Horn clauses: {} location tuples, {} rules, {} in {:.2f} s{}{}",
        found.tuples, found.rules,
        found.answer == SatResult::kUnsat ? "invariant found"
        : found.answer == SatResult::kSat ? "a failure derivable"
                                          : "undecided",
        found.seconds, found.reason.empty() ? "" : " (" + found.reason + ")",
        found.atoms.empty() ? "" : ": " + fmt::format("{}", fmt::join(found.atoms, "; "))));
  }
  if (found.answer != SatResult::kUnsat || found.invariant.empty() ||
      request.drb.horn == HornUse::kAtoms) {
    return false;
  }
  horn.check = CheckInvariant(request.source, program, n, options.deadlock, found.invariant,
                              request.drb.solver_timeout_ms, &limits);
  if (hooks.refine_log != nullptr && *hooks.refine_log) {
    (*hooks.refine_log)(fmt::format(
        "druba: refine: the invariant ({} tuples) {} ({} queries)", found.invariant.size(),
        horn.check->holds ? "holds" : "fails: " + horn.check->why, horn.check->queries));
  }
  if (!horn.check->holds) return false;
  horn.proved = true;
  const std::string reason = fmt::format(
      "an inductive invariant excludes every failure{} (one formula for each of {} location "
      "tuples, from a Horn solver, checked)",
      options.deadlock || program.check_deadlock ? " and deadlock" : "", found.invariant.size());
  ProvedByInvariant(first, reason,
                    InvariantCertificate(request.digest, n, options.deadlock, found.invariant));
  return true;
}

// Whether a statement of `program` names a fixed thread (`num[0]`, `pc[1]`, `ok[0][j]`): its
// threads are then not alike up to their order, and invariants read off other counts seldom fit it.
bool NamesFixedThread(const Program& program) {
  std::vector<const Expr*> indices;
  for (const Statement& st : program.statements) drb::ThreadIndexExprs(st.body, indices);
  return std::any_of(indices.begin(), indices.end(),
                     [](const Expr* e) { return e->kind == Expr::Kind::kNumber; });
}

// When the exact search did not decide at one thread count N, on a program of one thread template
// that is not symmetric and names no fixed thread (and no deadlock to decide): the invariants from
// finite instances (invariants/ordered_invariant.h) prove every count >= N at once, N among them.
// They come first, before the Horn solver and refinement, which for such protocols cost more and
// often end undecided (Ricart-Agrawala at 3 threads: 46 s and 2.5 GB through the Horn solver and
// refinement before these answered; `--threads 3..` took 11 s). Makes `first` a `safe` by them and
// returns true.
bool TryOrdered(const DrbRequest& request, const Program& program, const ThreadCounts& threads,
                Round& first, LimitWatch& limits, const StrategyHooks& hooks) {
  const run::RunOptions& options = request.options;
  if (!request.drb.refine || options.command != run::Command::kVerify ||
      options.mode != Mode::kDruba || options.deadlock || program.check_deadlock ||
      first.counts.verdict != Verdict::kUnknown || threads.every_count_from_first ||
      program.templates.size() != 1 || program.symmetric || NamesFixedThread(program) ||
      limits.Check()) {
    return false;
  }
  const std::uint32_t n = threads.first;
  const OrderedResult proof = ProveEveryOrderedCount(
      request.source, program, n, n + kOrderedInstances, request.drb.solver_timeout_ms, &limits);
  if (hooks.refine_log != nullptr && *hooks.refine_log) {
    (*hooks.refine_log)(fmt::format("druba: refine: invariants from finite instances: {}, {}",
                                    VerdictName(proof.verdict), proof.reason));
  }
  if (proof.verdict != Verdict::kSafe) return false;
  ProvedByInvariant(first, fmt::format("{}, so at {} threads", proof.reason, n),
                    OrderedCertificate(request.digest, n, proof.invariant));
  return true;
}

// With every count asked, a first round that ends `unknown` (a count undecided, or the closure
// across counts broken) runs the next count once before the costlier proofs: a violation there
// is a run of the program, the answer, found without refining the counts below it (pthread-ext's
// 40_barrier_vf: at 3 threads in 0.3 s, where refinement took 30 s to prove 1 and 2 first).
// Anything else is dropped and the proofs go on as before. Not with --refine off (the paper's
// algorithm alone). Makes `first` that violation and returns true.
bool LookAhead(const DrbRequest& request, const Program& program, const AbstractionSpec& spec,
               const ThreadCounts& threads, Round& first, LimitWatch& limits,
               const StrategyHooks& hooks) {
  if (!request.drb.refine || !threads.every_count_from_first ||
      first.counts.verdict != Verdict::kUnknown || first.runs.empty() || hooks.run_count ||
      limits.Check()) {
    return false;
  }
  const std::uint32_t n = first.runs.back().threads + 1;
  if (n > threads.last) return false;
  run::CountRun next = RunOne(request, program, spec, n, limits, false, hooks, nullptr);
  if (next.result.verdict != Verdict::kViolation) return false;
  first.counts.verdict = Verdict::kViolation;
  first.counts.reason = next.result.reason;
  first.counts.all.reset();
  first.runs.push_back(std::move(next));
  return true;
}

}  // namespace

Round RunRound(const DrbRequest& request, const Program& program, const AbstractionSpec& spec,
               const ThreadCounts& threads, LimitWatch& limits, const StrategyHooks& hooks) {
  Round round;
  round.counts = RunThreadCounts(
      program, spec, threads, request.drb.solver_timeout_ms, &limits, hooks.solver_log,
      [&](std::uint32_t n) {
        const bool fixed_count = !threads.every_count_from_first;
        round.runs.push_back(
            hooks.run_count
                ? hooks.run_count(request, program, spec, n, fixed_count)
                : RunOne(request, program, spec, n, limits, fixed_count, hooks, hooks.cache));
        const run::CountRun& one = round.runs.back();
        // The set stays valid while the run in `round` keeps its DrbKept.
        return CountOutcome{one.result.verdict, one.result.reason, KeptOf(one).abstract_set.get()};
      });
  return round;
}

Verified Verify(const DrbRequest& request, const Program& program, const ChosenAbstraction& chosen,
                const ThreadCounts& threads, LimitWatch& limits, const StrategyHooks& hooks) {
  // Each round hands its searches on to the next, which goes on from them.
  SearchCache cache;
  StrategyHooks rounds = hooks;
  if (request.drb.refine && request.drb.reuse_searches) rounds.cache = &cache;
  Verified out;
  Round& first = out.round;
  first = RunRound(request, program, chosen.spec(), threads, limits, rounds);
  if (LookAhead(request, program, chosen.spec(), threads, first, limits, hooks)) return out;
  if (TryOrdered(request, program, threads, first, limits, hooks)) return out;
  if (TryHorn(request, program, threads, first, limits, hooks)) return out;
  std::optional<Round> last =
      RefineAfterFirst(request, program, chosen, threads, first, out.refiner, limits, rounds);
  out.refined = last && last->counts.verdict != Verdict::kUnknown;
  if (out.refined) {
    last->horn = std::move(first.horn);
    out.round = std::move(*last);
    return out;
  }
  // Refinement did not decide either, and the solver ran out of its share: nothing else is left
  // to try but a longer attempt (a 3-thread bakery takes Spacer about 30 s).
  if (first.horn && first.horn->result.answer == SatResult::kUnknown &&
      first.horn->result.out_of_time && !limits.Check() &&
      TryHorn(request, program, threads, first, limits, hooks, /*second=*/true)) {
    return out;
  }
  // A limit that stopped the Horn solver or refinement ended the run: the reason says so.
  const std::optional<std::string> why = limits.Check();
  if (why && first.counts.verdict == Verdict::kUnknown &&
      first.counts.reason.find(*why) == std::string::npos) {
    first.counts.reason += "; then " + *why;
  }
  return out;
}

}  // namespace druba::predabs
