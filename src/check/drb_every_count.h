// `druba check` for `.drb` certificates that claim every thread count from N on (`every_count`):
// the abstraction and the abstract set S of thread 0's view, for a symmetric program. The checker
// decides, with its own SMT encoding in which threads are an uninterpreted sort of at least N
// elements (so one query covers every count >= N, and larger structures only add states),
// locations and locals are arrays over that sort and quantifiers stay quantifiers:
//   initial: the initial state's view is in S, whatever the count;
//   closure: in a well-formed state in which every thread's view is in S, a step of any thread
//            leaves every thread's view in S and does not fail.
// By induction on path length every reachable state of every count >= N has every view in S, and
// none has failed. It does not rely on the per-count runs of druba's argument.
//
// With `ordered` (certificates saying "thread_ids": "ordered", for programs that are not
// symmetric: docs/certificates.md), the threads are the integers 0 .. n-1 with n >= N symbolic,
// every quantifier over threads ranges over them, and `self`, bound threads and ids held in
// variables are those integers (compared, stored, used as indices, with a runtime failure out of
// range), so that one query still covers every count >= N; the set is every thread's view.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "check/result.h"
#include "drb/ast.h"

namespace druba::check {

// `set`: the abstract states (tracked locations, then predicates as 0/1). `r` holds what passed
// before (digest). A program or predicate the encoding cannot state for every count (a `count`
// quantifier, `self` or a bound thread used as a number) is invalid ("unsupported"), never valid.
CheckResult CheckEveryCount(CheckResult r, const drb::Program& program,
                            const drb::AbstractionSpec& spec,
                            const std::vector<std::vector<std::uint32_t>>& set,
                            std::uint32_t min_threads, bool ordered, unsigned timeout_ms,
                            LimitWatch* limits = nullptr);

}  // namespace druba::check
