// The `.drb` reader: a lexer and a recursive-descent parser with name resolution and type
// checking. Every error names file, line and column (InputError).
#pragma once

#include <string>
#include <string_view>

#include "predabs/ast.h"

namespace druba::predabs {

Program ParseProgram(std::string_view text, const std::string& file);

// Renders an expression back as source text (for predicate names and messages).
std::string ExprToString(const Program& program, const Expr& expr);

}  // namespace druba::predabs
