// What a `.drb` report says beyond states and statements: why a step fails, every break of
// closure (not only the first), the sandwich proof's upper bound for a fixed thread count, and
// the thread symmetry exhaustion may reduce by.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "abstraction/orbits.h"
#include "abstraction/upper_bound.h"
#include "explore/state_store.h"
#include "interp/model.h"
#include "predabs/predicate_abstraction.h"

namespace druba::predabs {

// Every reached abstract state with an unreached successor under a disrespecting action (up to
// `max`), not only the first the closure test met: they help choose better predicates.
std::vector<std::string> ClosureBreaks(PredicateAbstraction& abs, const StateStore& set,
                                       std::size_t max);

// The sandwich proof for a fixed thread count (DESIGN.md section 8): O by the all-SAT abstract
// post of every statement, relative to O itself (the closure test's invariant, "every thread's
// view lies in the set", holds of a set closed under every action by upper_bound.h's induction).
// No thread symmetry: the abstraction is thread 0's view, not one component per thread, so the
// proof holds when U reaches O. Each abstract successor is a solver query, far dearer than a
// concrete successor call, so the caller runs it only when asked for, and then first.
SandwichSetup MakeSandwich(const PredicateAbstraction& abs);

// The thread symmetry of a symmetric program (one template, no thread told apart: docs/drb.md)
// at one count, for exhaustion over one state per orbit (abstraction/orbits.h); none for another
// program or one thread. Permuting the threads permutes the per-thread parts of a state (location
// and locals, entries of `a[threads]` among them), maps steps to steps and keeps "some thread
// failed" and "deadlock". An abstraction that tells no thread but thread 0 apart
// (`abs.spec().symmetric`) is invariant under the permutations that fix thread 0, so one state
// per thread of each orbit shows it all; another (one that tracks every thread's location, the
// default at one count) sees every state of the orbit.
std::optional<OrbitSetup> MakeOrbitSetup(const PredicateAbstraction& abs, const IntModel& model);

}  // namespace druba::predabs
