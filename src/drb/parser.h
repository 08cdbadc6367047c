// The `.drb` reader: a lexer and a recursive-descent parser with name resolution and type
// checking. Every error names file, line and column (InputError).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "drb/ast.h"

namespace druba::drb {

// The text of a C program's translation (docs/c.md) is read with `file` the C file: each statement
// is then placed at the C line its label names (`c21`, `c21_2`: line 21), which traces show.
Program ParseProgram(std::string_view text, const std::string& file);

// Renders an expression back as source text (for predicate names and messages). With `self_as`
// (a bound variable's name), the executing thread's locals, location and index are rendered as
// another thread's: `l` as `l[self_as]`, `self` as `self_as` (refinement lifts atoms so).
std::string ExprToString(const Program& program, const Expr& expr, const std::string& self_as = "");

// A deep copy of an expression.
ExprPtr CloneExpr(const Expr& e);

// A binary operator on two integer values, as the language defines it (division and modulo as in
// SMT-LIB: the remainder is never negative; a comparison or connective gives 0 or 1); none for a
// division or modulo by zero. Throws std::logic_error for an operator that is not binary.
std::optional<Int> ApplyBinaryOp(Expr::Op op, const Int& a, const Int& b);

}  // namespace druba::drb
