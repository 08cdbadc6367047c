// Exhaustion up to thread symmetry: beside the Round-Robin search, a breadth-first search under
// free scheduling that stores one state per orbit of the thread symmetry (FreeSearch::ReduceBy,
// explore/free_search.h), for a model whose threads are interchangeable and a property and an
// abstraction given each stored form's orbit (OrbitViews: all of it, or for an abstraction that
// the permutations fixing thread 0 do not change, one state per thread). A symmetric .drb program
// at one thread count (strategy/run_hooks.h says when).
//
// Why it is sound. Every state it stores is reachable, and when it has expanded every state it
// stored, every reachable state is a permutation of one of them (free_search.h). "Some thread
// failed" and "deadlock" are invariant under permutations, so no reachable state violates the
// property iff no stored one does; the listener sees enough of each orbit (OrbitViews) that its
// abstract set is alpha(R) exactly. It keeps an abstract set of
// its own: the plateau proof (Thm. 7) is about the Round-Robin search's sets R(r,d) and must not
// see states it did not reach.
//
// Its cost: after each raise of the Round-Robin search it may spend up to half that search's
// successor calls so far, so a program whose state space is infinite pays a bounded share; after
// a failed closure test it replaces the Round-Robin search's way to exhaustion (within the same
// budget of calls and memory, --exhaust-share).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>

#include "abstraction/abstraction.h"
#include "abstraction/run_result.h"
#include "common/resources.h"
#include "explore/canonical.h"
#include "explore/free_search.h"

namespace druba {

// What a kind offers for it: the symmetry, and which states of an orbit its abstraction must see.
struct OrbitSetup {
  ThreadSymmetry symmetry;
  OrbitViews views = OrbitViews::kAll;
};

template <ExplorableModel Model, Abstraction Abs>
class OrbitSearch {
 public:
  using Search = FreeSearch<Model, AbstractTracker<Abs>>;

  OrbitSearch(Model& model, const Abs& abs, LimitWatch* limits, OrbitSetup setup)
      : tracker_(abs), search_(model, tracker_, limits), limits_(limits) {
    search_.ReduceBy(std::move(setup.symmetry), setup.views);
  }

  // As PlateauDriver::CheckConcrete: a property of concrete states checked on every form's views.
  void CheckConcrete(std::function<bool(StateView)> violates) {
    tracker_.CheckConcrete(std::move(violates));
  }
  // The search stops, with `unknown`, when the run's memory (`memory()`) passes this.
  void CapMemory(double bytes) { memory_cap_ = bytes; }

  // Expands for `calls` successor calls, or (none) until it has made half of `explorer_calls`.
  // True when it answered in `result`: `safe` (proof: exhausted) when every stored form was
  // expanded, or a violation (its record is a stored form's id: Trace).
  template <class Memory>
  bool Advance(RunResult& result, std::uint64_t explorer_calls, std::optional<std::uint64_t> calls,
               Memory&& memory) {
    if (answered_ || search_.stopped()) return answered_;
    const std::uint64_t half = explorer_calls / 2;
    if (!calls && half <= search_.image_calls()) return false;
    std::uint64_t stored = 0;
    const auto status =
        search_.Advance(calls.value_or(half - search_.image_calls()), [&](StateView /*state*/) {
          const bool check = (++stored & 4095U) == 0;
          return check && static_cast<double>(memory()) > memory_cap_ ? std::string(kMemory)
                                                                      : std::string();
        });
    result.symmetric_search_states = search_.num_states();
    result.symmetric_search_calls = search_.image_calls();
    if (tracker_.violation_record()) {
      result.verdict = Verdict::kViolation;
      result.violation_record = tracker_.violation_record();
      result.reason = "a reachable state violates the property";
    } else if (status == Search::Status::kDone) {
      result.verdict = Verdict::kSafe;
      result.proof = Proof::kExhausted;
      result.reason =
          "exhausted: a search under free scheduling over one state per orbit of the "
          "thread symmetry expanded all " +
          std::to_string(search_.num_states()) +
          " of them, so every reachable state was explored up to a permutation of "
          "the threads";
    } else {
      return false;
    }
    answered_ = true;
    result.symmetric_exhaustion = true;
    result.closure_failure.reset();
    return true;
  }

  // After a failed closure test (PlateauDriver::GoOnToExhaustion): expands for `budget` calls
  // within `memory_cap` bytes; when it does not answer, `result.reason` says how far it went, or
  // which limit stopped it.
  template <class Memory>
  void Exhaust(RunResult& result, std::uint64_t budget, double memory_cap,
               std::uint64_t explorer_calls, Memory&& memory) {
    CapMemory(memory_cap);
    if (Advance(result, explorer_calls, budget, memory)) return;
    if (limits_ != nullptr) {
      if (auto reason = limits_->Poll()) {
        result.reason = *reason;
        return;
      }
    }
    result.reason += "; the exact search over one state per orbit of the thread symmetry stored " +
                     std::to_string(num_states()) +
                     " states and did not exhaust the state space within its budget of " +
                     std::to_string(budget) +
                     " successor calls and its share of memory (--exhaust-share)";
  }

  bool answered() const { return answered_; }
  // Its states; Trace(record) is a concrete run to a state in the orbit of the form `record`.
  const Search& search() const { return search_; }
  Search& search() { return search_; }
  std::size_t num_states() const { return search_.num_states(); }
  std::size_t MemoryBytes() const { return search_.MemoryBytes(); }
  // alpha(R) once it answered `safe`.
  const StateStore& abstract_states() const { return tracker_.set(); }

 private:
  static constexpr const char* kMemory = "its share of memory";
  AbstractTracker<Abs> tracker_;
  Search search_;
  LimitWatch* limits_;
  double memory_cap_ = std::numeric_limits<double>::infinity();
  bool answered_ = false;
};

}  // namespace druba
