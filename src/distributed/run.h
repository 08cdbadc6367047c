// One distributed run, for any model kind: the search at every process (search.h), the property
// checked on each state a process stores, its abstract states gathered at process 0, and the
// figures and the verdict there. `test` reaches fixed bounds. `verify` first tries the sandwich
// proof where druba computes O before any exploration (a property given, or interchangeable
// threads): O by every process (upper_bound.h), then, with interchangeable threads, the search
// over one state per orbit (orbit_search.h) until the reached abstract states, closed under the
// symmetry, cover O. Otherwise, or where that did not answer, the paper's proof: Alg. 1's schedule
// of raises (abstraction/plateau_schedule.h, which PlateauDriver follows too), Thm. 7's closure
// test at process 0, and after a failed test druba's exact search towards exhaustion. What it
// does not have is what druba runs beside the Round-Robin search: O computed alongside it, and
// the search over orbits after its head start (so it computes `druba verify` where O answers
// first, and `druba verify --upper-bound off --symmetric-search off` otherwise; the tests compare
// both). After each raise, process 0 adds the abstract states new at each process to the union,
// counts those new to it and tells every process, so that all take the same next raise.
// Kind-free: the front end hands over the model and the property (mpi/main.cc).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "abstraction/abstraction.h"
#include "abstraction/plateau_schedule.h"
#include "abstraction/run_result.h"
#include "abstraction/sandwich.h"
#include "abstraction/verdict.h"
#include "common/resources.h"
#include "distributed/comm.h"
#include "distributed/orbit_search.h"
#include "distributed/request.h"
#include "distributed/search.h"
#include "distributed/upper_bound.h"
#include "explore/state_store.h"
#include "explore/trace.h"

namespace druba::distributed {

// What a kind checks of each state its process stores: whether it violates the property, and
// (optionally) its abstract state, whose words are self-contained; for verify, the closure test
// of Thm. 7 on the union of the abstract states.
struct Property {
  std::function<bool(StateView)> violates;
  std::size_t abstract_width = 0;  // 0: no abstract states
  std::function<void(StateView, std::span<Word>)> abstract;
  std::function<std::optional<ClosureFailure>(const StateStore&, std::uint64_t*)> closure;
  // A property of concrete states that the abstract states do not decide (a `.drb` program's
  // deadlock freedom), named `concrete_what` (empty: none, the abstract states decide the
  // property): where the closure test holds, `concrete_proof` over the union ("" when no state it
  // admits violates, else why not) proves it, as PlateauDriver::ProveConcreteBy; without a proof
  // (or where it fails), only exhaustion does.
  std::function<std::string(const StateStore&)> concrete_proof;
  std::string concrete_what;  // its name in the reason ("deadlock freedom")
  // verify: the sandwich proof (upper_bound.h), where the kind has it.
  std::optional<SandwichKind> sandwich;
};

// The run's outcome, complete at process 0.
struct Outcome {
  RunResult result;  // verdict, reason, proof, bounds, schedule
  std::uint64_t states = 0;
  std::uint64_t keys = 0;
  std::uint64_t pairs = 0;
  std::optional<std::uint64_t> abstract_states;
  std::uint64_t transitions = 0;
  std::uint64_t bytes_sent = 0;
  std::uint64_t states_sent = 0;  // states (and O's abstract states) sent to their owners
  std::uint64_t messages = 0;
  std::uint64_t exchanges = 0;
  std::vector<std::uint64_t> states_by_process;
  std::vector<double> peak_rss_mb_by_process;
  std::vector<TraceStep> trace;  // a violation's run, slot by slot (at process 0)
};

namespace detail {

// Hears each state this process stores: keeps its abstract state (and which are new since the
// last gathering), and checks the property.
struct Listener {
  const Property* property;
  std::optional<StateStore> abstract;
  std::size_t gathered = 0;  // abstract states already sent to process 0
  std::vector<Word> scratch;
  std::optional<std::uint32_t> violation;  // the record of the first violating state

  explicit Listener(const Property& p) : property(&p), scratch(p.abstract_width) {
    if (p.abstract_width > 0) abstract.emplace(p.abstract_width);
  }
  bool OnNewState(std::uint32_t record, StateView state) {
    if (abstract) {
      property->abstract(state, scratch);
      abstract->FindOrInsert(StateView(scratch));
    }
    if (!property->violates(state)) return true;
    violation = record;
    return false;
  }
};

}  // namespace detail

template <DistributableModel Model>
class Run {
 public:
  Run(Comm& comm, Model& model, const Property& property, const Request& request,
      LimitWatch& limits)
      : comm_(&comm),
        model_(&model),
        property_(&property),
        request_(request),
        limits_(&limits),
        listener_(property),
        ticker_(request.progress, request.progress_interval_s),
        search_(comm, model, listener_, &limits, request.batch_bytes) {
    if (property.abstract_width > 0) union_.emplace(property.abstract_width);
    search_.SetProgress(&ticker_);
  }

  // R(request.bounds): a violation, or none within them. Collective.
  Outcome Test() {
    RunResult& result = out_.result;
    bool going =
        Raise(RaiseEvent::Dim::kStart,
              request_.stepwise ? Bounds{std::min<std::uint32_t>(request_.bounds.rounds, 1), 0}
                                : request_.bounds);
    while (going && search_.bounds() != request_.bounds) {
      if (search_.bounds().rounds < request_.bounds.rounds) going = Raise(RaiseEvent::Dim::kRounds);
      if (going && search_.bounds().delays < request_.bounds.delays) {
        going = Raise(RaiseEvent::Dim::kDelays);
      }
    }
    if (going) {
      result.verdict = Verdict::kBounded;
      const Bounds b = search_.bounds();
      result.reason = "no violation within " + std::to_string(b.rounds) +
                      (b.rounds == 1 ? " round and " : " rounds and ") + std::to_string(b.delays) +
                      (b.delays == 1 ? " delay" : " delays");
    }
    return Finish();
  }

  // This process's states, each once.
  template <class F>
  void ForEachState(F&& f) const {
    search_.ForEachState(std::forward<F>(f));
  }

  // At process 0, the union of every process's abstract states (null without an abstraction).
  const StateStore* abstract_union() const { return union_ ? &*union_ : nullptr; }

  // The paper's proof (Alg. 1, Thm. 7). Collective.
  Outcome Verify() {
    RunResult& result = out_.result;
    const std::uint32_t n = model_->num_threads();
    if (property_->sandwich && Sandwich(*property_->sandwich)) return Finish();
    const auto over = [this](RaiseEvent::Dim dim) { return !Raise(dim); };
    if (RaiseToPlateau(n, result, over)) return Finish();
    if (!MeetsTheorem7(search_.bounds(), result, n)) {
      result.reason = "internal: plateau lengths do not meet Thm. 7";
      return Finish();
    }
    // A search with nothing left to expand has reached R itself: no abstraction argument needed.
    if (request_.exhaust_share > 0 && Exhausted()) return Finish();
    // The closure test at process 0, on the union (and the concrete property's proof over it);
    // its answer to every process.
    std::string failure;
    if (comm_->rank() == 0 && !property_->concrete_what.empty()) {
      failure = ConcreteFailure();
    } else if (comm_->rank() == 0) {
      result.closure_failure = property_->closure(*union_, &result.closure_checks);
      if (result.closure_failure) failure = ClosureFailureReason(*result.closure_failure);
    }
    failure = comm_->Broadcast(failure, 0);
    if (!failure.empty()) {
      result.reason = failure;
      GoOnToExhaustion();
      return Finish();
    }
    result.verdict = Verdict::kSafe;
    result.proof = Proof::kPlateau;
    result.reason = PlateauProofReason(n);
    if (!property_->concrete_what.empty()) {
      result.reason = fmt::format(
          "1 round raise and {} delay raise{} added no abstract state, the set is closed under "
          "the disrespecting actions (Thm. 7), and no state it admits violates {}",
          n - 1, n == 2 ? "" : "s", property_->concrete_what);
    }
    return Finish();
  }

 private:
  // The sandwich proof where druba computes O before any exploration: with a property (O free of
  // violations answers) or with interchangeable threads (then the search over orbits seeks the
  // lower bound, as druba's head start does). True when it answered. Where it did not, the paper's
  // proof follows, without druba's search over orbits beside the Round-Robin one.
  bool Sandwich(const SandwichKind& kind) {
    RunResult& result = out_.result;
    const bool orbits = !kind.concrete_symmetry.classes.empty();
    if (!kind.has_property && !orbits) return false;
    DistributedUpperBound upper(*comm_, kind, request_.batch_bytes, limits_);
    upper.SetProgress(&ticker_);
    std::vector<Word> a(kind.width);
    model_->ForEachInitial([&](StateView s) {
      property_->abstract(s, std::span<Word>(a));
      upper.AddInitial(StateView(a));
    });
    const auto status = upper.Run();
    result.upper_bound_stats = upper.stats();
    sandwich_sent_ += upper.states_sent();
    if (status != DistributedUpperBound::Status::kDone) {
      result.upper_bound_note = "no upper bound: " + upper.stop_reason();
      return false;
    }
    const std::uint64_t size = upper.size();
    result.upper_bound = size;
    bool violating = false;
    for (std::uint32_t id = 0; id < upper.part().size() && !violating; ++id) {
      violating = kind.violates(upper.part().Get(id));
    }
    if (comm_->Max(violating ? 1 : 0) != 0) {
      result.upper_bound_note = "the upper bound holds a state that violates the property";
      return false;
    }
    if (kind.has_property) {
      result.proof = Proof::kUpperBound;
      result.reason = UpperBoundProofReason(size);
      return Answer(upper);
    }
    if constexpr (OrbitModel<Model>) {
      DistributedOrbitSearch<Model> lower(*comm_, *model_, kind, property_->abstract, upper.part(),
                                          size, request_.batch_bytes, limits_);
      lower.SetProgress(&ticker_);
      const auto found = lower.Run();
      sandwich_sent_ += lower.states_sent();
      result.symmetric_search_states = lower.states();
      result.symmetric_search_calls = lower.successor_calls();
      result.symmetric_reached = lower.reached();
      using Found = typename DistributedOrbitSearch<Model>::Status;
      if (found == Found::kCovered) {
        result.lower_bound_by_symmetric_search = true;
        result.proof = Proof::kSandwich;
        result.reason = SandwichProofReason(size);
        return Answer(upper);
      }
      result.upper_bound_note =
          found == Found::kStopped ? "the search over orbits stopped: " + lower.stop_reason()
          : found == Found::kExhausted
              ? "the states reached under free scheduling, closed under the thread symmetry, do "
                "not cover O"
              : "the search over orbits did not cover O within its " +
                    std::to_string(kind.orbit_search_calls) + " successor calls";
    }
    return false;
  }

  // At process 0, with a concrete property: "" when the closure test holds and the property's
  // proof over the union does too, else why only exhaustion proves the property (as
  // PlateauDriver::AnswerConcrete says it; without a proof, the closure test is not run).
  std::string ConcreteFailure() {
    const std::string& what = property_->concrete_what;
    if (!property_->concrete_proof) {
      return what + " is checked on explored states only, so only exhaustion proves it";
    }
    out_.result.closure_failure = property_->closure(*union_, &out_.result.closure_checks);
    if (out_.result.closure_failure) {
      return what +
             ": the reached abstract states are not closed under a disrespecting action, and "
             "only exhaustion proves it";
    }
    const std::string no = property_->concrete_proof(*union_);
    return no.empty() ? "" : what + ": " + no + ", and only exhaustion proves it";
  }

  // Whether no process has a move left that a larger bound would allow: then R(bounds) is R, and
  // the verdict is safe by exhaustion (the property was checked on every state). Collective.
  bool Exhausted() {
    if (search_.stopped() || search_.RoundMovesParked() || search_.DelayMovesParked()) return false;
    RunResult& result = out_.result;
    result.verdict = Verdict::kSafe;
    result.proof = Proof::kExhausted;
    result.closure_failure.reset();
    result.reason = ExhaustedReason(search_.bounds());
    return true;
  }

  // After a failed closure test, druba's exact search (PlateauDriver::GoOnToExhaustion): of the
  // two bounds whose raise would resume a waiting move, the one raised less often since the test
  // (rounds on a tie), until exhaustion, a violation, a limit, or its budget of successor calls.
  // (druba also stops it at a share of its memory; here each process's --memory-limit does.)
  void GoOnToExhaustion() {
    if (request_.exhaust_share <= 0) return;
    RunResult& result = out_.result;
    const std::uint64_t start = comm_->Sum(search_.stats().image_calls);
    const auto budget = static_cast<std::uint64_t>(
        request_.exhaust_share * static_cast<double>(std::max(start, kExhaustFloor)));
    const std::string failed = result.reason;
    std::uint32_t round_raises = 0;
    std::uint32_t delay_raises = 0;
    while (!Exhausted()) {
      const Bounds at = search_.bounds();
      const bool rounds_go = search_.RoundMovesParked() && at.rounds < kMaxBound;
      const bool delays_go = search_.DelayMovesParked() && at.delays < kMaxBound;
      const RaiseEvent::Dim dim =
          NextExhaustRaise(rounds_go, delays_go, round_raises, delay_raises);
      const bool spent = comm_->Sum(search_.stats().image_calls) - start >= budget;
      if (spent || (!rounds_go && !delays_go)) {
        result.reason = ExactSearchEndReason(
            failed, at, comm_->Sum(search_.num_states()),
            spent ? std::to_string(budget) + " successor calls (--exhaust-share)" : "");
        return;
      }
      if (!Raise(dim)) return;  // a violation or a limit: Finish says which
    }
  }

  // O answered: safe, with O the abstract set (gathered at process 0 when asked for).
  bool Answer(const DistributedUpperBound& upper) {
    out_.result.verdict = Verdict::kSafe;
    answered_size_ = upper.size();
    if (!request_.gather_answer) return true;
    union_.emplace(property_->abstract_width);  // O replaces the (empty) union
    GatherStates(*comm_, upper.part(), 0, *union_);
    return true;
  }

  // One raise of the search (kStart: to `start`), recorded with the number of abstract states new
  // to the union; false when the search stopped.
  bool Raise(RaiseEvent::Dim dim, Bounds start = {}) {
    const bool going = dim == RaiseEvent::Dim::kStart    ? search_.Start(start)
                       : dim == RaiseEvent::Dim::kRounds ? search_.RaiseRounds()
                                                         : search_.RaiseDelays();
    const std::uint64_t fresh = GatherAbstract();
    RecordRaise(out_.result,
                {dim, search_.bounds(), fresh, comm_->Sum(search_.stats().image_calls)});
    return going;
  }

  // Sends this process's abstract states new since the last call to process 0, which adds them
  // to the union; returns (at every process) how many were new to it.
  std::uint64_t GatherAbstract() {
    if (!union_) return 0;
    const std::size_t before = union_->size();
    GatherStates(*comm_, *listener_.abstract, listener_.gathered, *union_);
    listener_.gathered = listener_.abstract->size();
    return std::stoull(comm_->Broadcast(std::to_string(union_->size() - before), 0));
  }

  Outcome Finish() {
    RunResult& result = out_.result;
    result.bounds = search_.bounds();
    // Which process found a violation: the first of them reports it, with the run that led there.
    const auto none = static_cast<std::uint64_t>(comm_->size());
    const std::uint64_t finder =
        comm_->Min(listener_.violation ? static_cast<std::uint64_t>(comm_->rank()) : none);
    if (finder != none) {
      const int holder = static_cast<int>(finder);
      const std::string record = comm_->Broadcast(
          comm_->rank() == holder ? std::to_string(*listener_.violation) : "", holder);
      result.verdict = Verdict::kViolation;
      result.reason = "a reachable state violates the property";
      out_.trace = search_.PathTo(holder, static_cast<std::uint32_t>(std::stoul(record)));
      if (comm_->rank() == 0) NameSlots(*model_, out_.trace);
    } else if (search_.stopped()) {
      result.verdict = Verdict::kUnknown;
      result.reason = "the search stopped: " + search_.stop_reason();
    } else if (result.verdict == Verdict::kSafe) {
      // Every `safe` is checked against the limits once more, at every process (as
      // PlateauDriver's): a model that could not compute a successor, or a limit reached during
      // the closure test, stops them, and then no proof may stand.
      std::optional<std::string> limit = limits_->Poll();
      std::string reason = limit ? *limit : "";
      if (comm_->AnyStopped(limit.has_value(), reason)) {
        result.verdict = Verdict::kUnknown;
        result.proof = Proof::kNone;
        result.reason = reason;
      }
    }
    out_.states = comm_->Sum(search_.num_states());
    out_.keys = comm_->Sum(search_.num_keys());
    out_.pairs = comm_->Sum(search_.num_records());
    result.image_calls = comm_->Sum(search_.stats().image_calls);
    out_.transitions = comm_->Sum(search_.stats().transitions);
    out_.bytes_sent = comm_->Sum(comm_->bytes_sent());
    out_.states_sent = comm_->Sum(search_.states_sent() + sandwich_sent_);
    out_.messages = comm_->Sum(comm_->messages_sent());
    out_.exchanges = comm_->exchanges();
    if (answered_size_) {
      out_.abstract_states = *answered_size_;
    } else if (union_) {
      out_.abstract_states = union_->size();
    }
    search_.ProcessFigures(/*peak=*/true, out_.states_by_process, out_.peak_rss_mb_by_process);
    result.time_s = limits_->clock().Seconds();
    return std::move(out_);
  }

  Comm* comm_;
  Model* model_;
  const Property* property_;
  Request request_;
  LimitWatch* limits_;
  detail::Listener listener_;
  ProgressTicker ticker_;  // before search_, which reports through it
  DistributedSearch<Model, detail::Listener> search_;
  // At process 0: every process's abstract states (O, when O answered and was gathered).
  std::optional<StateStore> union_;
  std::optional<std::uint64_t> answered_size_;  // |O|, when O answered
  std::uint64_t sandwich_sent_ = 0;  // states and abstract states the sandwich proof sent
  Outcome out_;
};

}  // namespace druba::distributed
