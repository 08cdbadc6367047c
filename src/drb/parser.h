// The `.drb` reader: a lexer and a recursive-descent parser with name resolution and type
// checking. Every error names file, line and column (InputError).
#pragma once

#include <string>
#include <string_view>

#include "drb/ast.h"

namespace druba::drb {

Program ParseProgram(std::string_view text, const std::string& file);

// Renders an expression back as source text (for predicate names and messages). With `self_as`
// (a bound variable's name), the executing thread's locals, location and index are rendered as
// another thread's: `l` as `l[self_as]`, `self` as `self_as` (refinement lifts atoms so).
std::string ExprToString(const Program& program, const Expr& expr, const std::string& self_as = "");

// A deep copy of an expression.
ExprPtr CloneExpr(const Expr& e);

}  // namespace druba::drb
