// Every thread count for a program whose threads compare ids (`--threads N..` on an
// ordered-symmetric program, docs/drb.md): invariants read off finite instances and proved for
// every count, as Cubicle's invariants from finite instances (BRAB) do.
//
// 1. Finite instances: the program at N, N+1, N+2 threads (N+3 too for rank candidates) is
//    explored under free scheduling, every state up to a budget. A failure there is a violation at
//    the smallest count that has one.
// 2. Candidates, from thread `self`'s view, over one thread and over a pair of threads ordered by
//    id, each kept when it holds for every thread of every state those searches reached: which
//    locations two threads i < j never stand at together (`forall j: j <= self || pc[self] != a
//    || pc[j] != b`), which values a thread's variables and the shared ones take at a location,
//    and how those compare with the thread's id (`pc[self] != a || v[self] < self`).
// 3. Houdini: the candidates that fail in an initial state of some count >= N, or after a step of
//    some thread from a well-formed state of some count >= N in which every thread satisfies every
//    candidate left, are dropped until none is; the thread count is a solver variable and thread
//    ids the integers below it (Encoder::Ordered), so each query covers every count at once.
// 4. What is left is an inductive invariant of every count >= N: `safe` when no step from a state
//    that satisfies it fails. The proof does not rest on the finite instances, which only propose
//    the candidates, nor on ordered symmetry: the symbolic encoding is exact for every program of
//    one thread template.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "abstraction/verdict.h"
#include "common/resources.h"
#include "interp/program.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {

struct OrderedResult {
  Verdict verdict = Verdict::kUnknown;
  std::string reason;
  std::uint32_t violation_at = 0;      // kViolation: the smallest count with a failure
  std::vector<std::string> invariant;  // kSafe: the kept candidates, `.drb` text from `self`'s view
  OrderedFigures figures;
};

// Finite instances explored: first .. first + kOrderedInstances - 1 threads, and one more where
// those propose rank candidates (rank_candidates.h).
inline constexpr std::uint32_t kOrderedInstances = 3;

// The solver's work per query while weighted counts (weight_candidates.h) are candidates (Z3's
// resource units; a query of double_lock's proof for every count takes well under a million).
inline constexpr std::uint64_t kWeightedWork = 4'000'000;

// The argument above for counts >= `first` of `program` (parsed from `source`), with finite
// instances of `first` threads and up, at most `last` (see kOrderedInstances); `given` (`.drb` text
// from `self`'s view, the predicates of an abstraction block) are candidates too, kept or dropped
// by the same checks.
OrderedResult ProveEveryOrderedCount(const std::string& source, const Program& program,
                                     std::uint32_t first, std::uint32_t last, unsigned timeout_ms,
                                     LimitWatch* limits,
                                     const std::vector<std::string>& given = {});

// The certificate (docs/certificates.md, kind "drb predicates" with "thread_ids": "ordered"): the
// invariant as the abstraction, and one abstract state, every predicate true.
std::string OrderedCertificate(const std::string& digest, std::uint32_t first,
                               const std::vector<std::string>& invariant);

// The invariant as an abstraction block (one predicate per formula) that parses after the model.
std::string OrderedInvariantBlock(const std::vector<std::string>& invariant);

}  // namespace druba::predabs
