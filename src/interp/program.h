// The .drb language (src/drb: its syntax tree and reader) as predicate abstraction names it: the
// language's types, used here unqualified.
#pragma once

#include "drb/ast.h"
#include "drb/parser.h"

namespace druba::predabs {

using drb::AbstractionSpec;
using drb::CloneExpr;
using drb::Expr;
using drb::ExprPtr;
using drb::ExprToString;
using drb::Instr;
using drb::Int;
using drb::ParseProgram;
using drb::Predicate;
using drb::Program;
using drb::Sort;
using drb::Statement;
using drb::ThreadTemplate;
using drb::TrackedPc;
using drb::Type;
using drb::Variable;
using drb::WalkExpr;

// A shared variable, or the executing thread's own local, read as a whole.
inline bool IsPlainVariable(const Expr& e) {
  return (e.kind == Expr::Kind::kShared || e.kind == Expr::Kind::kLocal) && e.args.empty();
}

}  // namespace druba::predabs
