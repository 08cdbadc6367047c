// The upper half of a sandwich proof (DESIGN.md section 8): a set O of abstract states that
// contains alpha(R), the abstraction of every state reachable under free scheduling, computed on
// abstract states alone.
//
// O is the least set S that contains alpha of the initial states and is closed under
// `oracle(S).ForEachAbstractSuccessor`, the abstract post of every action of every thread, where
// the oracle may resolve what the abstraction hides (a popped symbol, the values behind a
// predicate) by an invariant computed from S itself. Soundness is the induction that proves the
// `ai` baseline's verdict, now run over every action instead of after a plateau: suppose every
// oracle the abstraction makes from a set S enumerates, for each a in S, the abstraction of every
// successor of every concrete state s with alpha(s) = a that satisfies the oracle's invariant, and
// that invariant is preserved by every step whose source and target abstractions lie in S (for
// CPDS the may-lie-below relation of cpds/below.h, whose proof uses exactly that; for predicate
// abstraction "every thread's view lies in S"). Then, by induction on the length of a path, every
// reachable state has its abstraction in S and satisfies the invariant: the initial states by
// construction, and a step from s to s' because alpha(s') is enumerated from alpha(s) in S.
// Nothing here depends on Round-Robin bounds: O bounds alpha(R) for free scheduling, and so bounds
// alpha(R(r,d)) for every r and d.
//
// Kleene iteration: each pass makes the oracle from the set as it stands and expands every state
// with it; the states a pass adds are expanded in the same pass. A pass that adds nothing expanded
// every state of an unchanged S with oracle(S), so S is closed: that S is the result. Passes only
// add states, and the domain is finite, so the loop ends (or a limit stops it first, and then the
// set is not an upper bound and must not be used).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "abstraction/symmetry.h"
#include "common/resources.h"
#include "explore/state_store.h"

namespace druba {

struct UpperBoundStats {
  std::size_t passes = 0;
  std::uint64_t successors = 0;  // abstract successors enumerated
  double time_s = 0;
};

// Closes `set`, which holds the abstraction of the initial states, as above. Returns nullopt when
// `set` is O; otherwise why the computation stopped (a limit, more than `max_states` states, an
// undecided solver query), and `set` is then incomplete.
template <class MakeOracle>
std::optional<std::string> CloseUnderAllActions(StateStore& set, MakeOracle&& make_oracle,
                                                LimitWatch* limits, std::size_t max_states,
                                                UpperBoundStats* stats) {
  const Stopwatch clock;
  const std::size_t width = set.width();
  std::vector<Word> from(width);
  std::vector<Word> found;  // a state's successors, stored after the oracle returns
  std::optional<std::string> stop;
  for (;;) {
    ++stats->passes;
    const std::size_t before = set.size();
    const auto oracle = make_oracle(static_cast<const StateStore&>(set));
    for (std::uint32_t id = 0; id < set.size() && !stop; ++id) {
      const StateView state = set.Get(id);
      from.assign(state.begin(), state.end());
      found.clear();
      oracle.ForEachAbstractSuccessor(
          StateView(from), [&](std::uint32_t /*thread*/, std::uint32_t /*action*/, StateView to) {
            found.insert(found.end(), to.begin(), to.end());
          });
      stats->successors += found.size() / width;
      for (std::size_t at = 0; at < found.size(); at += width) {
        set.FindOrInsert(StateView(found.data() + at, width));
      }
      if constexpr (requires { oracle.undecided(); }) {
        if (!oracle.undecided().empty())
          stop = "a solver query was undecided: " + oracle.undecided();
      }
      if (set.size() > max_states) {
        stop = "it has more than " + std::to_string(max_states) + " abstract states";
      } else if (limits != nullptr) {
        stop = limits->Poll();
      }
    }
    if (!stop && set.size() == before) break;
    if (stop) break;
  }
  stats->time_s = clock.Seconds();
  return stop;
}

// What the sandwich proof needs from the model kind (DESIGN.md section 8).
struct SandwichSetup {
  // Closes a set holding alpha of the initial states into O (CloseUnderAllActions); nullopt when
  // it did, otherwise why not.
  std::function<std::optional<std::string>(StateStore&, LimitWatch*, UpperBoundStats*)> upper_bound;
  std::string relation;  // how O resolves what the abstraction hides, for the report
  ThreadSymmetry symmetry;
  // A property was given: when no state of O violates it, the verdict is `safe` before any
  // exploration. (Without one, `verify` computes alpha(R), and only the sandwich answers.)
  bool has_property = false;
};

}  // namespace druba
