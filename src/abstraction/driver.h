// The DrUBA driver (paper Alg. 1 as corrected by DESIGN.md section 4): raise the round bound until
// one raise adds no abstract state, then raise the delay bound; any new abstract state sends it
// back to rounds; after n-1 consecutive fruitless delay raises, test closure under the
// disrespecting actions. It answers `safe` only when both plateau conditions of Thm. 7 hold
// (checked again explicitly before the verdict) and the closure test passed, or when the sandwich
// proof of DESIGN.md section 8 holds: an upper bound O of alpha(R), computed first, is covered by
// the symmetric closure of the reached abstract set (O is then alpha(R) exactly), or no state of O
// violates the property.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "abstraction/abstraction.h"
#include "abstraction/free_runs.h"
#include "abstraction/orbits.h"
#include "abstraction/plateau_schedule.h"
#include "abstraction/run_result.h"
#include "abstraction/sandwich.h"
#include "abstraction/search_replay.h"
#include "abstraction/upper_bound.h"
#include "abstraction/verdict.h"
#include "common/resources.h"
#include "explore/explorer.h"
#include "explore/free_search.h"
#include "explore/shorten.h"
#include "explore/trace.h"

namespace druba {

template <ExplorableModel Model, Abstraction Abs>
class PlateauDriver {
 public:
  PlateauDriver(Model& model, const Abs& abs, LimitWatch* limits = nullptr,
                Mode mode = Mode::kDruba)
      : model_(model), abs_(abs), limits_(limits), mode_(mode) {
    Reset();
  }

  // The DrUBA schedule: plateaus, then the closure test (kAi also stops at the first raise after
  // which the reached set is closed under every action).
  RunResult Verify() {
    Stopwatch clock;
    RunResult result;
    const std::uint32_t n = explorer_->num_threads();
    if (AdvanceSandwich(result)) return Finish(result, clock);
    // One bound change; true when the run is over: a proof answered (the sandwich listener may
    // stop a step midway), or a violation or a limit stopped the search (Finish says which).
    const auto over = [&](RaiseEvent::Dim dim) {
      const bool going = Step(dim, result);
      if (going && (AdvanceSandwich(result) || AdvanceOrbits(result))) return true;
      if (SandwichHolds(result)) return true;
      return !going || ClosedUnderAll(result);
    };
    if (RaiseToPlateau(n, result, over)) return Finish(result, clock);
    if (!MeetsTheorem7(bounds(), result, n)) {
      result.verdict = Verdict::kUnknown;
      result.reason = "internal: plateau lengths do not meet Thm. 7";
      return Finish(result, clock);
    }
    if (mode_ == Mode::kAi) {  // it was not closed under every action after the last raise
      result.closure_failure = CheckClosure(abs_, tracker_->set(), &result.closure_checks, true);
      result.verdict = Verdict::kUnknown;
      result.reason =
          "ai: at the plateau the reached abstract states are not closed under every "
          "action";
      return Finish(result, clock);
    }
    // A search with nothing left to expand has reached R itself: no abstraction argument needed.
    if (mode_ == Mode::kDruba && exhaust_share_ > 0 && ExhaustedNow(result)) {
      return Finish(result, clock);
    }
    if (concrete_) {  // only exhaustion, or a proof over the abstract set, proves it
      AnswerConcrete(result, n);
      return Finish(result, clock);
    }
    result.closure_failure = CheckClosure(abs_, tracker_->set(), &result.closure_checks);
    if (result.closure_failure) {
      result.verdict = Verdict::kUnknown;
      result.reason = ClosureFailureReason(*result.closure_failure);
      if (mode_ == Mode::kDruba) GoOnToExhaustion(result);
    } else {
      result.verdict = Verdict::kSafe;
      result.proof = Proof::kPlateau;
      result.reason = PlateauProofReason(n);
    }
    return Finish(result, clock);
  }

  // R(bounds) only: a violation, or none within the bounds.
  RunResult Bounded(Bounds bounds) {
    Stopwatch clock;
    RunResult result;
    explorer_->Start(bounds);
    result.schedule.push_back({RaiseEvent::Dim::kStart, bounds, tracker_->TakeNewCount(),
                               explorer_->stats().image_calls});
    if (!explorer_->stopped()) {
      result.verdict = Verdict::kBounded;
      result.reason = "no violation within " + Counted(bounds.rounds, "round") + " and " +
                      Counted(bounds.delays, "delay");
    }
    return Finish(result, clock);
  }

  // Iterative deepening for bug hunting: R(rounds, 0), then one more delay at a time up to
  // `max_delays`, each raise expanding only the delay frontier. The first violation found is at
  // the smallest delay budget that exposes one within `rounds` rounds (R(r,d) is monotone in d).
  RunResult Deepen(std::uint32_t rounds, std::uint32_t max_delays) {
    Stopwatch clock;
    RunResult result;
    explorer_->Start({rounds, 0});
    result.schedule.push_back({RaiseEvent::Dim::kStart, explorer_->bounds(),
                               tracker_->TakeNewCount(), explorer_->stats().image_calls});
    while (!explorer_->stopped() && explorer_->bounds().delays < max_delays) {
      explorer_->RaiseDelays();
      result.schedule.push_back({RaiseEvent::Dim::kDelays, explorer_->bounds(),
                                 tracker_->TakeNewCount(), explorer_->stats().image_calls});
    }
    if (!explorer_->stopped()) {
      result.verdict = Verdict::kBounded;
      result.reason = "no violation within " + Counted(rounds, "round") + " and up to " +
                      Counted(max_delays, "delay");
    }
    Finish(result, clock);
    if (result.verdict == Verdict::kViolation) {
      result.reason = "smallest delay budget that exposes a violation within " +
                      std::to_string(rounds) + " rounds: " + std::to_string(result.bounds.delays);
    }
    return result;
  }

  // The `explicit` baseline: exhaustive search under free scheduling, exact when it finishes.
  // `too_big(state)` returns why a state is out of reach for it (empty: fine).
  template <class TooBig>
  RunResult Explicit(TooBig&& too_big) {
    Stopwatch clock;
    free_ = std::make_unique<FreeSearch<Model, AbstractTracker<Abs>>>(model_, *tracker_, limits_);
    free_->Run(too_big);
    RunResult result = ExplicitAnswer(*free_, *tracker_);
    if (result.verdict == Verdict::kSafe && !sampled_.empty()) {
      result.verdict = Verdict::kUnknown;
      result.proof = Proof::kNone;
      result.reason =
          "explicit: every state reachable under free scheduling with the values it "
          "samples was explored, which proves nothing: " +
          sampled_;
    }
    result.time_s = clock.Seconds();
    return result;
  }

  // The schedule to a violation's record, from whichever search found it, as a Round-Robin
  // trace. Empty when traces are off (KeepTrace(false)).
  std::vector<TraceStep> Trace(std::uint32_t record) {
    if (auto* free = FreeAnswered()) {  // reduced by the symmetry: made concrete
      const std::vector<TraceStep> steps = free->Trace(record);
      return AsRoundRobin(model_, steps.front().state, StepsOf(steps));
    }
    if (!keep_trace_) return {};
    return ReconstructTrace(*explorer_, model_, record);
  }
  // A violation's trace with as few statements as dropping them one by one leaves
  // (explore/shorten.h).
  std::vector<TraceStep> Shorten(const std::vector<TraceStep>& trace) {
    std::vector<Word> a(abs_.width());
    return ShortenTrace(model_, trace, [&](StateView state) {
      if (concrete_ && concrete_(state)) return true;
      abs_.Abstract(state, std::span<Word>(a));
      return abs_.Violates(StateView(a));
    });
  }
  // A violating run with the fewest statements of any (breadth-first under free scheduling, over
  // every state up to its length), as a Round-Robin trace; empty when a limit, or `max_calls`
  // successor calls, stopped the search first. Costs up to a whole explicit search.
  std::vector<TraceStep> ShortestTrace(
      std::uint64_t max_calls = std::numeric_limits<std::uint64_t>::max()) {
    return ShortestViolatingRun(model_, abs_, concrete_, limits_, max_calls);
  }
  // Whether a violation comes with its trace. The search keeps no parent links either way (a
  // trace is found backwards over the stored records: Explorer::SearchPathTo).
  void KeepTrace(bool keep) { keep_trace_ = keep; }
  bool keeps_trace() const { return keep_trace_; }
  // Threads for the expansion of each frontier (Explorer::SetJobs; `adaptive`: use them only
  // while it is faster); the verdict, the reached sets and the trace do not depend on it.
  void SetJobs(unsigned jobs, bool adaptive = false) {
    jobs_ = jobs;
    adaptive_jobs_ = adaptive;
    explorer_->SetJobs(jobs, Search::kParallelMin, adaptive);
  }
  unsigned jobs() const { return explorer_->jobs(); }
  // After a search over one state per orbit answered, its states (canonical forms: after
  // exhaustion, one of each orbit of the reachable states).
  std::size_t num_states() const {
    if (const auto* free = FreeAnswered()) return free->num_states();
    return replay_ ? replay_->num_shown() : explorer_->num_states();
  }
  bool answered_up_to_symmetry() const { return orbits_ && orbits_->answered(); }
  // Calls f(StateView) for every concrete state stored (after exhaustion: the reachable states),
  // or for the first `limit` of them, in the order they were stored.
  template <class F>
  void ForEachState(F&& f, std::size_t limit = std::numeric_limits<std::size_t>::max()) const {
    if (const FreeSearch<Model, AbstractTracker<Abs>>* free = FreeAnswered()) {
      for (std::uint32_t id = 0; id < std::min(limit, free->num_states()); ++id) f(free->state(id));
      return;
    }
    std::size_t seen = 0;
    for (std::uint32_t id = 0; id < explorer_->num_states() && seen < limit; ++id) {
      if (replay_ && !replay_->shown(id)) continue;  // beyond this run's bounds
      const std::vector<Word> s = explorer_->state(id);
      f(StateView(s));
      ++seen;
    }
  }
  std::size_t MemoryBytes() const {
    return explorer_->MemoryBytes() + (free_ ? free_->MemoryBytes() : 0) + OrbitMemoryBytes();
  }
  // The search over one state per orbit's share of MemoryBytes.
  std::size_t OrbitMemoryBytes() const { return orbits_ ? orbits_->MemoryBytes() : 0; }

  // A property of concrete states that the abstraction does not decide (a .drb deadlock): every
  // new program state is checked, a violating one is a violation with its trace, and since
  // abstract states say nothing about it, `safe` needs exhaustion: the plateau and sandwich
  // proofs do not answer (`what` names the property in the reason). Call before Verify.
  // The model explores a sample of the steps it has (`x := *` takes some values of many): a
  // search with nothing left to expand proves nothing then, and `why` says so in the verdict's
  // reason. The plateau, sandwich and upper-bound proofs stand (the abstraction's queries cover
  // every value). Call before Verify.
  void SetExhaustionProvesNothing(std::string why) { sampled_ = std::move(why); }
  void CheckConcrete(std::function<bool(StateView)> violates, std::string what) {
    concrete_ = std::move(violates);
    concrete_what_ = std::move(what);
    tracker_->CheckConcrete(concrete_);
    if (orbits_) orbits_->CheckConcrete(concrete_);
  }
  // With CheckConcrete: where the plateau proof holds (Thm. 7: every reachable state is admitted
  // by a reached abstract state), `prove(set)` may show that no state the set admits violates the
  // property; it returns "" when it does, else why not (and Verify goes on towards exhaustion).
  void ProveConcreteBy(std::function<std::string(const StateStore&)> prove) {
    concrete_proof_ = std::move(prove);
  }

  // After a failed closure test, Verify goes on towards exhaustion for at most `share` times the
  // successor calls spent before it, counted as at least `floor` (share 0: not at all, the
  // paper's algorithm alone).
  void SetExhaustBudget(double share, std::uint64_t floor = kExhaustFloor) {
    exhaust_share_ = share;
    exhaust_floor_ = floor;
  }
  // What the run is doing beyond the paper's schedule, for the progress line ("" when nothing).
  const char* phase() const { return exhausting_ ? "towards exhaustion " : ""; }
  // The states the search over one state per orbit has stored (0: none runs), for that line.
  std::size_t orbit_states() const { return orbits_ ? orbits_->num_states() : 0; }

  // Threads that are interchangeable (explore/canonical.h) for a property that permutations do not
  // change: beside the Round-Robin search, a search over one state per orbit (orbits.h) may prove
  // `safe` by exhaustion, and after a failed closure test it goes on towards exhaustion instead
  // of raising the bounds (OrbitSetup::views: which states of an orbit the abstraction must see).
  // Call before Verify.
  void ExhaustUpToSymmetry(OrbitSetup setup) {
    orbits_ = std::make_unique<OrbitSearch<Model, Abs>>(model_, abs_, limits_, std::move(setup));
    if (concrete_) orbits_->CheckConcrete(concrete_);
  }

  // The sandwich proof of DESIGN.md section 8, tried by Verify in Mode::kDruba.
  void UseSandwich(SandwichSetup setup) {
    sandwich_ = std::make_unique<SandwichProof<Model, Abs>>(model_, abs_, std::move(setup));
  }
  // |O| once computed, for the progress line.
  std::optional<std::size_t> upper_bound_size() const {
    return sandwich_ ? sandwich_->upper_bound_size() : std::nullopt;
  }

  using Search = Explorer<Model, AbstractTracker<Abs>>;
  // Refinement: takes on `search`, an earlier round's Round-Robin search of the same program at
  // the same thread count (its model of the same layout; only the abstraction differs), and
  // replays it along this run's schedule (replay.h) instead of searching again. Not with a
  // sandwich proof or a search over one state per orbit, which take shares of this run's
  // successor calls. Call before Verify; false (and `search` left as it was) when it does not
  // apply.
  bool Adopt(std::unique_ptr<Search>& search) {
    if (!search || mode_ != Mode::kDruba || sandwich_ || (orbits_ && exhaust_share_ > 0) ||
        search->num_threads() != explorer_->num_threads() || search->stopped() ||
        search->state_width() != model_.state_width()) {
      return false;
    }
    explorer_ = std::move(search);
    explorer_->Rebind(model_, *tracker_, limits_);
    replay_ = std::make_unique<SearchReplay<Search, AbstractTracker<Abs>>>(*explorer_);
    base_calls_ = replay_->adopted_calls();
    return true;
  }
  // After Verify: the Round-Robin search, for a later round to Adopt (null when it was stopped:
  // a limit or a violation left it incomplete). The driver must not be used after.
  std::unique_ptr<Search> Release() {
    if (explorer_->stopped()) return nullptr;
    replay_.reset();
    return std::move(explorer_);
  }
  // The bounds of the reached set: the search's, or during a replay those it replayed to.
  Bounds bounds() const { return replay_ ? replay_->bounds() : explorer_->bounds(); }

  const Search& explorer() const { return *explorer_; }
  // The reached abstract states; after a sandwich or upper-bound proof, O (alpha(R) itself after a
  // sandwich proof, an over-approximation of it after an upper-bound proof).
  const StateStore& abstract_states() const {
    if (answered_up_to_symmetry()) return orbits_->abstract_states();
    return sandwich_ && sandwich_->answer() != nullptr ? *sandwich_->answer() : tracker_->set();
  }
  Model& model() { return model_; }

 private:
  // The free search whose states answer (explicit mode, or the search over orbits); null when the
  // Round-Robin search's do.
  const FreeSearch<Model, AbstractTracker<Abs>>* FreeAnswered() const {
    return answered_up_to_symmetry() ? &orbits_->search() : free_.get();
  }
  FreeSearch<Model, AbstractTracker<Abs>>* FreeAnswered() {
    return answered_up_to_symmetry() ? &orbits_->search() : free_.get();
  }

  // Verify at the plateau with CheckConcrete: the plateau proof and ProveConcreteBy's, or else on
  // towards exhaustion.
  void AnswerConcrete(RunResult& result, std::uint32_t n) {
    std::string why = " is checked on explored states only, so only exhaustion proves it";
    if (concrete_proof_ && mode_ == Mode::kDruba) {
      // Where Thm. 7 holds, every reachable state is admitted by a reached abstract state.
      result.closure_failure = CheckClosure(abs_, tracker_->set(), &result.closure_checks);
      const std::string no = result.closure_failure ? "" : concrete_proof_(tracker_->set());
      if (!result.closure_failure && no.empty()) {
        result.verdict = Verdict::kSafe;
        result.proof = Proof::kPlateau;
        result.reason = "1 round raise and " + std::to_string(n - 1) +
                        (n == 2 ? " delay raise" : " delay raises") +
                        " added no abstract state, the set is closed under the "
                        "disrespecting actions (Thm. 7), and no state it admits violates " +
                        concrete_what_;
        return;
      }
      why = result.closure_failure ? ": the reached abstract states are not closed under a "
                                     "disrespecting action, and only exhaustion proves it"
                                   : ": " + no + ", and only exhaustion proves it";
    }
    result.verdict = Verdict::kUnknown;
    result.reason = concrete_what_ + why;
    if (mode_ == Mode::kDruba) GoOnToExhaustion(result);
  }

  void Reset() {
    explorer_.reset();
    tracker_ = std::make_unique<AbstractTracker<Abs>>(abs_);
    if (concrete_) tracker_->CheckConcrete(concrete_);
    explorer_ = std::make_unique<Search>(model_, *tracker_, limits_);
    explorer_->KeepParents(false);
    explorer_->SetJobs(jobs_, Search::kParallelMin, adaptive_jobs_);
  }

  // One bound change; false when the search was stopped.
  bool Step(RaiseEvent::Dim dim, RunResult& result) {
    if (mode_ == Mode::kNaive && dim != RaiseEvent::Dim::kStart) {
      Bounds next = explorer_->bounds();
      (dim == RaiseEvent::Dim::kRounds ? next.rounds : next.delays) += 1;
      const std::size_t before = tracker_->set().size();
      earlier_calls_ += explorer_->stats().image_calls;
      Reset();
      explorer_->Start(next);
      tracker_->TakeNewCount();
      new_in_naive_ = tracker_->set().size() - before;  // R(r,d) is monotone in r and d
    } else if (replay_) {
      replay_->Step(*explorer_, *tracker_, dim);
      result.replayed_states = replay_->replayed();
      if (replay_->CaughtUp(*explorer_)) replay_.reset();
      new_in_naive_ = tracker_->TakeNewCount();
    } else {
      switch (dim) {
        case RaiseEvent::Dim::kStart:
          explorer_->Start();
          break;
        case RaiseEvent::Dim::kRounds:
          explorer_->RaiseRounds();
          break;
        case RaiseEvent::Dim::kDelays:
          explorer_->RaiseDelays();
          break;
      }
      new_in_naive_ = tracker_->TakeNewCount();
    }
    result.image_calls = earlier_calls_ + explorer_->stats().image_calls - base_calls_;
    RecordRaise(result, {dim, bounds(), new_in_naive_, result.image_calls});
    return !explorer_->stopped();
  }

  // Whether the search is exhausted (Explorer::exhausted): then R(r,d) = R, and the verdict is
  // `safe` with the exact abstract set alpha(R), whatever the abstraction (a violation would have
  // stopped the search).
  bool ExhaustedNow(RunResult& result) {
    // Replaying, R(bounds()) is R when the search beyond it is exhausted and holds nothing more.
    if (!explorer_->exhausted() || (replay_ && !replay_->AllShown(*explorer_))) return false;
    if (!sampled_.empty()) {
      sampled_exhausted_ = true;
      return false;
    }
    result.verdict = Verdict::kSafe;
    result.proof = Proof::kExhausted;
    result.closure_failure.reset();
    result.reason = ExhaustedReason(bounds());
    return true;
  }

  // After a failed closure test: the exact search goes on from where it stands, along the
  // diagonal: of the two bounds whose raise would resume a waiting move, it raises the one raised
  // less often since the test (rounds on a tie), until it is exhausted (`safe`), finds a
  // violation, is stopped by a limit, or has spent its budget of successor calls
  // (SetExhaustBudget): then the verdict stays `unknown`, saying how far it went. Every raise is
  // in the schedule. Raising rounds for as long as round moves wait never reaches a bug that
  // needs one more delay in a program whose counter grows for ever; on the diagonal, every
  // violation within (r,d) is found once both bounds pass it, so the search is complete in the
  // limit. For a finite state space it ends (each key keeps finitely many pairs, as no kept pair
  // is dominated by a later one: Dickson's lemma); for an infinite one only the budget or a
  // limit ends it.
  void GoOnToExhaustion(RunResult& result) {
    if (exhaust_share_ <= 0) return;
    // (An adopted search's calls count with those of the rounds that made it: the search stands
    // on them.)
    const std::uint64_t start = explorer_->stats().image_calls;
    const auto budget = static_cast<std::uint64_t>(
        exhaust_share_ * static_cast<double>(std::max(start, exhaust_floor_)));
    // Memory, too, grows by at most about the share: a run that fit before the test is not made
    // to run out of it by the search that goes on.
    const double memory_budget = (exhaust_share_ + 1) * static_cast<double>(MemoryBytes()) +
                                 static_cast<double>(std::size_t{256} << 20);
    exhausting_ = true;
    const std::string failed = result.reason;
    if (orbits_) {  // it goes on within the same budgets instead of raising bounds
      orbits_->Exhaust(result, budget, memory_budget, explorer_->stats().image_calls,
                       [this] { return MemoryBytes(); });
      exhausting_ = false;
      return;
    }
    std::uint32_t round_raises = 0;
    std::uint32_t delay_raises = 0;
    while (!ExhaustedNow(result)) {
      const Bounds at = bounds();
      const Bounds searched = explorer_->bounds();  // beyond `at` while replaying
      // A bound at its limit is raised no more; the other goes on while its moves wait.
      const bool rounds_go =
          (at.rounds < searched.rounds || explorer_->round_moves_parked()) && at.rounds < kMaxBound;
      const bool delays_go =
          (at.delays < searched.delays || explorer_->delay_moves_parked()) && at.delays < kMaxBound;
      const RaiseEvent::Dim dim =
          NextExhaustRaise(rounds_go, delays_go, round_raises, delay_raises);
      const bool spent = explorer_->stats().image_calls - start >= budget ||
                         static_cast<double>(MemoryBytes()) > memory_budget;
      if (spent || (!rounds_go && !delays_go)) {
        result.reason = ExactSearchEndReason(
            failed, at, num_states(),
            spent ? std::to_string(budget) +
                        " successor calls and its share of memory (--exhaust-share)"
                  : "");
        if (sampled_exhausted_) {
          result.reason = failed +
                          "; the exact search went on and explored every state with the "
                          "values it samples, which proves nothing: " +
                          sampled_;
        }
        break;
      }
      const bool going = Step(dim, result);
      // The sandwich proof may answer on the way (its watcher stops the search when the reached
      // states cover O), as in the paper's schedule.
      if ((going && AdvanceSandwich(result)) || SandwichHolds(result)) {
        result.closure_failure.reset();
        break;
      }
      if (!going) break;  // a violation or a limit: Finish says which
    }
    exhausting_ = false;
  }

  // Advances the search over one state per orbit (orbits.h) by its share of the Round-Robin
  // search's calls; true when it answered.
  bool AdvanceOrbits(RunResult& result) {
    if (!orbits_ || mode_ != Mode::kDruba || exhaust_share_ <= 0) return false;
    return orbits_->Advance(result, explorer_->stats().image_calls, std::nullopt,
                            [this] { return MemoryBytes(); });
  }

  // kAi: is the reached set closed under every action? Then it is an inductive invariant that
  // contains the initial abstract state, so it is exactly alpha(R): safe.
  bool ClosedUnderAll(RunResult& result) {
    if (mode_ != Mode::kAi || concrete_) return false;
    if (CheckClosure(abs_, tracker_->set(), &result.closure_checks, /*all_actions=*/true)) {
      return false;
    }
    result.verdict = Verdict::kSafe;
    result.proof = Proof::kClosed;
    result.reason = "the reached abstract states are closed under every action";
    return true;
  }

  // Advances the sandwich proof (sandwich.h); true when O alone answers.
  bool AdvanceSandwich(RunResult& result) {
    if (mode_ != Mode::kDruba || !sandwich_ || concrete_) return false;
    return sandwich_->Advance(result, explorer_->stats().image_calls, limits_, *tracker_);
  }
  // After a raise: does Sym(U) cover O? Then alpha(R) = O (DESIGN.md section 8).
  bool SandwichHolds(RunResult& result) {
    return sandwich_ && sandwich_->Holds(result, explorer_->stats().image_calls);
  }

  RunResult& Finish(RunResult& result, const Stopwatch& clock) {
    result.bounds = bounds();
    result.image_calls = earlier_calls_ + explorer_->stats().image_calls - base_calls_;
    if (sandwich_) sandwich_->NoteUnfinished(result);
    // Every `safe` is checked against the limits once more: a model that could not compute a
    // successor stops them, and then no proof may stand on the states explored.
    if (result.verdict == Verdict::kSafe && limits_ != nullptr) {
      if (auto reason = limits_->Poll(); reason && !explorer_->stopped()) {
        result.verdict = Verdict::kUnknown;
        result.proof = Proof::kNone;
        result.reason = *reason;
      }
    }
    if (explorer_->stopped() && result.proof != Proof::kSandwich) {
      if (tracker_->violation_record()) {
        result.verdict = Verdict::kViolation;
        result.violation_record = tracker_->violation_record();
        result.closure_failure.reset();  // found going on after a failed closure test
        result.reason = "a reachable state violates the property";
      } else {
        result.verdict = Verdict::kUnknown;
        result.reason = explorer_->stop_reason();
      }
    }
    result.time_s = clock.Seconds();
    return result;
  }

  Model& model_;
  const Abs& abs_;
  LimitWatch* limits_;
  Mode mode_;
  bool keep_trace_ = true;
  unsigned jobs_ = 1;
  bool adaptive_jobs_ = false;
  std::unique_ptr<AbstractTracker<Abs>> tracker_;
  std::unique_ptr<Search> explorer_;
  std::unique_ptr<FreeSearch<Model, AbstractTracker<Abs>>> free_;
  std::uint64_t earlier_calls_ = 0;  // kNaive: successor calls of the discarded computations
  std::uint64_t base_calls_ = 0;     // Adopt: the adopted search's calls of earlier rounds
  std::unique_ptr<SearchReplay<Search, AbstractTracker<Abs>>> replay_;  // Adopt, until caught up
  std::size_t new_in_naive_ = 0;
  std::unique_ptr<SandwichProof<Model, Abs>> sandwich_;  // UseSandwich
  std::unique_ptr<OrbitSearch<Model, Abs>> orbits_;      // ExhaustUpToSymmetry
  double exhaust_share_ = 4;  // after a failed closure test (SetExhaustBudget)
  std::uint64_t exhaust_floor_ = kExhaustFloor;
  bool exhausting_ = false;
  std::string sampled_;             // SetExhaustionProvesNothing
  bool sampled_exhausted_ = false;  // the search had nothing left to expand, and proved nothing
  std::function<bool(StateView)> concrete_;                       // CheckConcrete
  std::function<std::string(const StateStore&)> concrete_proof_;  // ProveConcreteBy
  std::string concrete_what_;
};

}  // namespace druba
