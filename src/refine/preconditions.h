// Weakest preconditions as refinement candidates (refine/refine.h): at a closure break, the
// breaking statement maps the states of its abstract state `a` to states outside the reached set;
// which of them it does depends on the values of the abstraction's predicates after the step and
// on whether the step fails. Their weakest preconditions through the statement, `P[x := e]` along
// each path of its body and `C[x := e]` for each assertion C on the way, are predicates on the
// states at `a` that tell those apart: atoms the text does not spell (`x + 1 == y` for the
// predicate `x == y` through `x := x + 1`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "interp/program.h"

namespace druba::predabs {

// At most this many paths of a statement's body are followed.
inline constexpr std::size_t kMaxPreconditionPaths = 16;

// The preconditions of `predicates` (their texts over `program`'s variables, thread 0's view)
// and of the statement's assertions through statement `stmt` executed by thread `actor` (0: the
// viewing thread; another: only where the path writes shared variables from shared values, as
// the view's locals are not the actor's), as `.drb` text, each once. Predicates over locations,
// quantifiers, counts or array elements picked at run time are left out, and so are paths that
// write an array element picked at run time.
std::vector<std::string> Preconditions(const Program& program,
                                       const std::vector<const Expr*>& predicates,
                                       std::uint32_t stmt, std::uint32_t actor);

}  // namespace druba::predabs
