// What the parser adds to a program's statements once they are read: the checks of its `unsafe`
// properties, and the first step's choice of the initial values left free (`= *`, `initially`).
//
// A global bad-state property, `unsafe EXPR;` (Program::unsafe), checked in every step: an
// assertion of its negation before every way out of every statement, read in the state the step
// enters (the stepping thread at the location it goes to), and, unless the declarations show the
// initial state safe at every thread count, at the start of each template's first statement.
#pragma once

#include "drb/ast.h"

namespace druba::drb {

// The quantifiers an `unsafe` property may have (forall, exists, count): each is split into the
// stepping thread and the others in every step's check.
inline constexpr std::size_t kMaxUnsafeQuantifiers = 6;

// Adds the checks of every property of program.unsafe to its statements. Called once, by the
// parser, after the labels are resolved and the statements' next locations set.
void CheckUnsafeEveryStep(Program& program);

// Makes the run's first step choose the initial values of the shared variables declared `= *`
// (Program::initially): each template's first statement starts with `if !__started then { x := *,
// ...; assume INITIALLY; __started := true }`, before the check of the initial state that
// CheckUnsafeEveryStep put there. Nothing when the program has no such variable or constraint.
void ChooseInitialValues(Program& program);

}  // namespace druba::drb
