// The .drb parser, expressions: precedence climbing from `=>` down to primaries, quantifiers over
// threads, and the bounds on nesting and height that keep recursion finite.
#include "drb/parser_internal.h"

namespace druba::drb::internal {

// ---- expressions ----

ExprPtr Parser::MakeBool(bool v, const SourceLocation& where) {
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kBool;
  e->sort = Sort::kBool;
  e->value = v ? 1 : 0;
  e->where = where;
  return e;
}

ExprPtr Parser::MakeNumber(const Int& v, const SourceLocation& where) {
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kNumber;
  e->value = v;
  e->where = where;
  return e;
}

ExprPtr Parser::ParseBoolExpr() {
  const Token& at = Cur();
  ExprPtr e = ParseExpr();
  if (e->sort != Sort::kBool) Fail(at, "expected a Boolean expression");
  return e;
}

ExprPtr Parser::ParseIntExpr() {
  const Token& at = Cur();
  ExprPtr e = ParseExpr();
  if (e->sort != Sort::kInt) Fail(at, "expected an integer expression");
  return e;
}

void Parser::Measure(Expr& e, const Token& at) const {
  for (const ExprPtr& arg : e.args) e.height = std::max(e.height, arg->height + 1);
  if (e.height > kMaxHeight) {
    Fail(at, "expression nested too deeply (more than " + std::to_string(kMaxHeight) +
                 " operators deep; split it with a local variable)");
  }
}

ExprPtr Parser::Binary(Expr::Op op, ExprPtr a, ExprPtr b, const Token& at) {
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kBinary;
  e->op = op;
  e->where = Where(at);
  const bool logic = op == Expr::Op::kAnd || op == Expr::Op::kOr || op == Expr::Op::kImplies;
  const bool arith = op == Expr::Op::kAdd || op == Expr::Op::kSub || op == Expr::Op::kMul ||
                     op == Expr::Op::kDiv || op == Expr::Op::kMod;
  const bool equality = op == Expr::Op::kEq || op == Expr::Op::kNe;
  if (logic) {
    if (a->sort != Sort::kBool || b->sort != Sort::kBool) {
      Fail(at, "'" + at.text + "' needs Boolean operands");
    }
    e->sort = Sort::kBool;
  } else if (arith) {
    if (a->sort != Sort::kInt || b->sort != Sort::kInt) {
      Fail(at, "'" + at.text + "' needs integer operands");
    }
    e->sort = Sort::kInt;
  } else if (equality) {
    if (a->sort != b->sort) Fail(at, "'" + at.text + "' compares values of different types");
    e->sort = Sort::kBool;
  } else {
    if (a->sort != Sort::kInt || b->sort != Sort::kInt) {
      Fail(at, "'" + at.text + "' needs integer operands");
    }
    e->sort = Sort::kBool;
  }
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  Measure(*e, at);
  return e;
}

ExprPtr Parser::ParseExpr() {
  const Nest nest(*this);
  ExprPtr lhs = ParseOr();
  if (Peek("=>")) {
    const Token& at = tokens_[pos_++];
    return Binary(Expr::Op::kImplies, std::move(lhs), ParseExpr(), at);
  }
  return lhs;
}

ExprPtr Parser::ParseOr() {
  ExprPtr lhs = ParseAnd();
  while (Peek("||")) {
    const Token& at = tokens_[pos_++];
    lhs = Binary(Expr::Op::kOr, std::move(lhs), ParseAnd(), at);
  }
  return lhs;
}

ExprPtr Parser::ParseAnd() {
  ExprPtr lhs = ParseNot();
  while (Peek("&&")) {
    const Token& at = tokens_[pos_++];
    lhs = Binary(Expr::Op::kAnd, std::move(lhs), ParseNot(), at);
  }
  return lhs;
}

ExprPtr Parser::ParseNot() {
  if (Peek("!")) {
    const Nest nest(*this);
    const Token& at = tokens_[pos_++];
    ExprPtr inner = ParseNot();
    if (inner->sort != Sort::kBool) Fail(at, "'!' needs a Boolean operand");
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kUnary;
    e->op = Expr::Op::kNot;
    e->sort = Sort::kBool;
    e->where = Where(at);
    e->args.push_back(std::move(inner));
    Measure(*e, at);
    return e;
  }
  if (Peek("forall") || Peek("exists")) return ParseQuantifier();
  return ParseComparison();
}

ExprPtr Parser::ParseComparison() {
  ExprPtr lhs = ParseAdditive();
  static constexpr std::pair<std::string_view, Expr::Op> kOps[] = {
      {"==", Expr::Op::kEq}, {"!=", Expr::Op::kNe}, {"<", Expr::Op::kLt},
      {"<=", Expr::Op::kLe}, {">", Expr::Op::kGt},  {">=", Expr::Op::kGe}};
  for (const auto& [text, op] : kOps) {
    if (!Peek(text)) continue;
    const Token& at = tokens_[pos_++];
    ExprPtr rhs = lhs->sort == Sort::kPc ? ParseLabel() : ParseAdditive();
    if (lhs->sort == Sort::kPc && op != Expr::Op::kEq && op != Expr::Op::kNe) {
      Fail(at, "a program counter can only be compared with '==' or '!='");
    }
    const Expr* label = lhs->sort == Sort::kPc ? rhs.get() : nullptr;
    ExprPtr comparison = Binary(op, std::move(lhs), std::move(rhs), at);
    if (label != nullptr) label_comparison_[label] = comparison.get();
    return comparison;
  }
  if (lhs->sort == Sort::kPc) Fail(Cur(), "compare 'pc' with a label, e.g. 'pc == 2'");
  return lhs;
}

ExprPtr Parser::ParseLabel() {
  const Token& t = Cur();
  if (t.kind != Token::Kind::kIdent && t.kind != Token::Kind::kNumber) {
    Fail(t, "expected a label" + Found());
  }
  ++pos_;
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kLabel;
  e->sort = Sort::kPc;
  e->where = Where(t);
  pending_labels_.emplace_back(e.get(), t.text);
  return e;
}

ExprPtr Parser::ParseAdditive() {
  ExprPtr lhs = ParseMultiplicative();
  for (;;) {
    if (Peek("+") || Peek("-")) {
      const Token& at = tokens_[pos_++];
      lhs = Binary(at.text == "+" ? Expr::Op::kAdd : Expr::Op::kSub, std::move(lhs),
                   ParseMultiplicative(), at);
    } else {
      return lhs;
    }
  }
}

ExprPtr Parser::ParseMultiplicative() {
  ExprPtr lhs = ParseUnary();
  for (;;) {
    if (Peek("*") || Peek("/") || Peek("%")) {
      const Token& at = tokens_[pos_++];
      const Expr::Op op = at.text == "*"   ? Expr::Op::kMul
                          : at.text == "/" ? Expr::Op::kDiv
                                           : Expr::Op::kMod;
      lhs = Binary(op, std::move(lhs), ParseUnary(), at);
    } else {
      return lhs;
    }
  }
}

ExprPtr Parser::ParseUnary() {
  if (Peek("-")) {
    const Nest nest(*this);
    const Token& at = tokens_[pos_++];
    ExprPtr inner = ParseUnary();
    if (inner->sort != Sort::kInt) Fail(at, "'-' needs an integer operand");
    if (inner->kind == Expr::Kind::kNumber) {
      inner->value = -inner->value;
      return inner;
    }
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::kUnary;
    e->op = Expr::Op::kNeg;
    e->where = Where(at);
    e->args.push_back(std::move(inner));
    Measure(*e, at);
    return e;
  }
  return ParsePrimary();
}

ExprPtr Parser::ParseConditional() {
  const Token& kw = tokens_[pos_++];
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kIte;
  e->where = Where(kw);
  e->args.push_back(ParseBoolExpr());
  Expect("then");
  const Token& then_at = Cur();
  e->args.push_back(ParseExpr());
  if (!Peek("else")) {
    Fail(Cur(), "a conditional value `if C then A else B` needs its 'else'" + Found());
  }
  ++pos_;
  const Token& else_at = Cur();
  e->args.push_back(ParseExpr());
  e->sort = e->args[1]->sort;
  if (e->sort == Sort::kPc) Fail(then_at, "a conditional value is an integer or a Boolean");
  if (e->args[2]->sort != e->sort) {
    Fail(else_at, std::string("the 'else' value must be ") +
                      (e->sort == Sort::kBool ? "a Boolean" : "an integer") +
                      ", as the 'then' value is");
  }
  Measure(*e, kw);
  return e;
}

ExprPtr Parser::ParseQuantifier() {
  const Token& kw = tokens_[pos_++];
  auto e = std::make_unique<Expr>();
  e->kind = kw.text == "forall" ? Expr::Kind::kForall : Expr::Kind::kExists;
  e->sort = Sort::kBool;
  e->where = Where(kw);
  ParseBinder(*e);
  Expect(":");
  e->args.push_back(ParseBoolExpr());
  bound_.pop_back();
  Measure(*e, kw);
  return e;
}

void Parser::ParseBinder(Expr& e) {
  const Token& name = ExpectIdent("a thread variable");
  if (FindVar(name.text)) Fail(name, "'" + name.text + "' already names a variable");
  if (Accept("!=")) {
    Expect("self");
    e.exclude_self = true;
  }
  e.var = program_.num_slots++;
  bound_.emplace_back(name.text, e.var);
}

ExprPtr Parser::ThreadIndex() {
  if (Peek("self") && PeekAt(1, "]")) {  // the thread's own copy: no index, still symmetric
    pos_ += 2;
    return nullptr;
  }
  // A quantified thread as the index names a thread, as any thread would: still symmetric. Any
  // other index (and a quantified thread used as a number anywhere else, ParsePrimary) tells
  // threads apart by their numbers.
  const Asymmetry before = *asymmetric_;
  ExprPtr index = ParseIntExpr();
  Expect("]");
  if (index->kind == Expr::Kind::kBound) {
    *asymmetric_ = before;
  } else {
    MarkAsymmetric(index->where, "an array index that is not a quantified thread");
  }
  return index;
}

ExprPtr Parser::ArrayElement(const Token& name, const ArrayRef& array) {
  if (!Accept("[")) {
    Fail(Cur(), "'" + name.text + "' is an array of " + std::to_string(array.size) +
                    " elements: name one, `" + name.text + "[i]`" + Found());
  }
  ExprPtr index = ParseIntExpr();
  Expect("]");
  const Variable& first = array.local ? program_.locals[array.first] : program_.shared[array.first];
  auto e = std::make_unique<Expr>();
  e->where = Where(name);
  e->sort = first.type == Type::kBool ? Sort::kBool : Sort::kInt;
  if (index->kind == Expr::Kind::kNumber) {
    if (index->value < 0 || index->value >= array.size) {
      Fail(name, "index " + index->value.str() + " is outside '" + name.text + "' (0 to " +
                     std::to_string(array.size - 1) + ")");
    }
    e->kind = array.local ? Expr::Kind::kLocal : Expr::Kind::kShared;
    e->var = array.first + static_cast<std::uint32_t>(index->value);
    return e;
  }
  e->kind = array.local ? Expr::Kind::kLocalElement : Expr::Kind::kSharedElement;
  e->var = array.first;
  e->value = array.size;
  e->args.push_back(std::move(index));
  Measure(*e, name);
  return e;
}

ExprPtr Parser::PairEntry(const Token& name, std::uint32_t pair) {
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kPair;
  e->where = Where(name);
  e->var = pair;
  e->sort = program_.pairs[pair].type == Type::kBool ? Sort::kBool : Sort::kInt;
  for (int k = 0; k < 2; ++k) {
    if (!Accept("[")) {
      Fail(Cur(), "'" + name.text + "' has an entry per pair of threads: name one, `" + name.text +
                      "[i][j]`" + Found());
    }
    e->args.push_back(ParseIntExpr());
    Expect("]");
  }
  Measure(*e, name);
  return e;
}

ExprPtr Parser::ParsePrimary() {
  const Token& t = Cur();
  const SourceLocation where = Where(t);
  if (t.kind == Token::Kind::kNumber) {
    ++pos_;
    return MakeNumber(DecimalLiteral(t.text), where);
  }
  if (Accept("(")) {
    ExprPtr e = ParseExpr();
    Expect(")");
    return e;
  }
  if (Accept("true")) return MakeBool(true, where);
  if (Accept("false")) return MakeBool(false, where);
  if (Peek("if")) return ParseConditional();
  auto e = std::make_unique<Expr>();
  e->where = where;
  if (Accept("self")) {
    e->kind = Expr::Kind::kSelf;
    MarkAsymmetric(where, "`self`");
    return e;
  }
  if (Accept("pc")) {
    e->kind = Expr::Kind::kPc;
    e->sort = Sort::kPc;
    if (Accept("[")) {
      if (ExprPtr index = ThreadIndex()) e->args.push_back(std::move(index));
    }
    return e;
  }
  if (Accept("count")) {
    e->kind = Expr::Kind::kCount;
    Expect("(");
    ParseBinder(*e);
    Expect(":");
    e->args.push_back(ParseBoolExpr());
    Expect(")");
    bound_.pop_back();
    Measure(*e, t);
    return e;
  }
  if (t.kind != Token::Kind::kIdent || IsKeyword(t.text)) {
    Fail(t, "expected an expression" + Found());
  }
  ++pos_;
  for (auto it = bound_.rbegin(); it != bound_.rend(); ++it) {
    if (it->first == t.text) {
      e->kind = Expr::Kind::kBound;
      e->var = it->second;
      // A thread's number (ThreadIndex undoes it for a thread index).
      MarkAsymmetric(where, "a quantified thread used as a number");
      return e;
    }
  }
  if (const auto array = FindArray(t.text)) return ArrayElement(t, *array);
  if (const auto pair = FindPairArray(t.text)) return PairEntry(t, *pair);
  const auto ref = FindVar(t.text);
  if (!ref) Fail(t, "unknown name '" + t.text + "'");
  const Variable& var = ref->local ? program_.locals[ref->index] : program_.shared[ref->index];
  e->kind = ref->local ? Expr::Kind::kLocal : Expr::Kind::kShared;
  e->var = ref->index;
  e->sort = var.type == Type::kBool ? Sort::kBool : Sort::kInt;
  if (Accept("[")) {
    if (!ref->local) Fail(t, "'" + t.text + "' is shared; only locals have a copy per thread");
    if (ExprPtr index = ThreadIndex()) e->args.push_back(std::move(index));
  }
  return e;
}

}  // namespace druba::drb::internal
