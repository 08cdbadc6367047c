// The C kind's expressions (lowering.h): C's integer operators on unbounded integers, with C's
// truncating division, `&&`, `||` and `?:` evaluating only what C evaluates, and a shared
// variable's read moved into a temporary of its own step where the statement touches more than one.
#include <string>
#include <vector>

#include "c/lowering.h"

namespace druba::c::internal {

namespace {

// Whether `e` calls a function of the program (not a nondeterministic value's): its body's steps
// would be emitted before the expression's.
bool CallsAFunction(CXCursor e) {
  if (KindOf(e) == CXCursor_CallExpr && !Spelling(e).starts_with("__VERIFIER_nondet_")) {
    return true;
  }
  for (const CXCursor kid : Children(e)) {
    if (CallsAFunction(kid)) return true;
  }
  return false;
}

}  // namespace

Val Lowering::Expr(CXCursor e, Mode mode) {
  Val v = Value(e, mode);
  const IntegerType type = IntegerOf(clang_getCursorType(e));
  const int bits = type.is_unsigned ? type.bits : 0;
  if (bits == 0 || v.boolean || mode == Mode::kCount || InRange(e, bits)) return v;
  // A constant of an unsigned type is written as its value (`0u - 1` as 4294967295).
  if (const std::optional<long long> c = IntegerValue(e);
      c && *c >= 0 && (bits == 64 || *c < (1LL << bits))) {
    return {std::to_string(*c), false};
  }
  // A sum or difference of two values in range is at most one modulus out.
  if (const CXCursor b = Bare(e); KindOf(b) == CXCursor_BinaryOperator) {
    const std::string op = OperatorOf(b);
    const std::vector<CXCursor> kids = Children(b);
    if ((op == "+" || op == "-") && InRange(kids[0], bits) && InRange(kids[1], bits)) {
      return {WrappedSum(v.text, op[0], bits), false};
    }
  }
  return {Wrapped(v.text, bits), false};
}

// A read of a variable of an unsigned type no wider, or a literal in range: no wrap needed. Not
// any constant: clang's value of `0u - 1` is in range, the text it is written as is not.
bool Lowering::InRange(CXCursor e, int bits) {
  CXCursor b = Bare(e);
  if (KindOf(b) == CXCursor_ArraySubscriptExpr) b = Bare(Children(b)[0]);
  if (KindOf(b) == CXCursor_DeclRefExpr) {
    const auto it = vars_.find(Usr(clang_getCursorReferenced(b)));
    if (it != vars_.end() && it->second.bits > 0 && it->second.bits <= bits) return true;
  }
  const CXCursorKind k = clang_getCursorKind(b);
  if (k == CXCursor_BinaryOperator && OperatorOf(b) == "%" &&
      IntegerOf(clang_getCursorType(b)).is_unsigned) {
    return InRange(Children(b)[1], bits);  // below its divisor
  }
  if (k != CXCursor_IntegerLiteral && k != CXCursor_CharacterLiteral) return false;
  const std::optional<long long> v = IntegerValue(b);
  return v && *v >= 0 && (bits == 64 || *v < (1LL << bits));
}

Val Lowering::Value(CXCursor e, Mode mode) {
  const CXCursor b = Bare(e);
  const std::vector<CXCursor> kids = Children(b);
  switch (clang_getCursorKind(b)) {
    case CXCursor_IntegerLiteral:
    case CXCursor_CharacterLiteral: {
      const std::optional<long long> v = IntegerValue(b);
      if (!v) Refuse(b, "a literal druba could not read");
      return {std::to_string(*v), false};
    }
    case CXCursor_DeclRefExpr: {
      const CXCursor decl = clang_getCursorReferenced(b);
      if (clang_getCursorKind(decl) == CXCursor_EnumConstantDecl) {
        return {std::to_string(clang_getEnumConstantDeclValue(decl)), false};
      }
      return Read(VarOf(b), mode, b);
    }
    case CXCursor_UnaryOperator: {
      const std::string op = OperatorOf(b);
      if (const Var* v = Deref(b)) return Read(*v, mode, b);
      if (op == "+") return Expr(kids[0], mode);
      if (op == "-") return {"(-" + AsInt(Expr(kids[0], mode)) + ")", false};
      if (op == "!") return {"(!" + AsBool(Expr(kids[0], mode)) + ")", true};
      Refuse(b, "the operator '" + op + "' inside an expression");
    }
    case CXCursor_BinaryOperator:
      return Binary(b, OperatorOf(b), mode);
    case CXCursor_ArraySubscriptExpr: {  // the index first, then the element (in a hoist)
      const Var& array = ArrayOf(kids[0]);
      const std::string index = AsInt(Expr(kids[1], mode));
      return Read(Element(array, index), mode, b);
    }
    case CXCursor_ConditionalOperator: {
      const std::string c = AsBool(Expr(kids[0], mode));
      if (mode != Mode::kCount && (CallsAFunction(kids[1]) || CallsAFunction(kids[2]))) {
        return LazyChoice(b, c, mode);
      }
      const Val a = Expr(kids[1], mode);
      const Val z = Expr(kids[2], mode);
      if (a.boolean && z.boolean)
        return {"(if " + c + " then " + a.text + " else " + z.text + ")", true};
      return {"(if " + c + " then " + AsInt(a) + " else " + AsInt(z) + ")", false};
    }
    case CXCursor_CallExpr:
      return CallValue(b, mode);
    default:
      Refuse(b,
             "the expression '" + Text(clang_getCursorKindSpelling(clang_getCursorKind(b))) + "'");
  }
}

Val Lowering::Binary(CXCursor e, const std::string& op, Mode mode) {
  const std::vector<CXCursor> kids = Children(e);
  const Val l = Expr(kids[0], mode);
  const bool lazy = op == "&&" || op == "||";
  if (lazy && mode != Mode::kCount && CallsAFunction(kids[1])) return LazyCall(e, op, l, mode);
  const Val r = Expr(kids[1], mode);
  if (op == "&&") return {"(if " + AsBool(l) + " then " + AsBool(r) + " else false)", true};
  if (op == "||") return {"(if " + AsBool(l) + " then true else " + AsBool(r) + ")", true};
  if ((op == "==" || op == "!=") && l.boolean && r.boolean) {
    return {"(" + l.text + " " + op + " " + r.text + ")", true};
  }
  const std::string a = AsInt(l);
  const std::string b = AsInt(r);
  if (op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=") {
    return {"(" + a + " " + op + " " + b + ")", true};
  }
  // Of an unsigned type both operands are (C's usual conversions): C's quotient is .drb's.
  const bool unsigned_type = IntegerOf(clang_getCursorType(e)).is_unsigned;
  const std::string value = unsigned_type && (op == "/" || op == "%")
                                ? "(" + a + " " + op + " " + b + ")"
                                : Arith(op, a, b);
  if (value.empty()) Refuse(e, "the operator '" + op + "' inside an expression");
  return {value, false};
}

// `l && r` or `l || r` where r calls a function: l's value into a temporary, and r's steps (the
// call's body among them) only where C evaluates r, then r's value into the same temporary.
Val Lowering::LazyCall(CXCursor e, const std::string& op, const Val& l, Mode mode) {
  const CXCursor right = Children(e)[1];
  const std::string t = Temp(true);
  Emit(t + " := " + AsBool(l), e);
  const std::string evaluates = op == "&&" ? t : "!" + t;  // whether C evaluates r
  const std::string skips = op == "&&" ? "!" + t : t;
  if (atomic_ != nullptr) {  // structured, as an `if` in an atomic section
    const std::string block = Block([&] { Emit(t + " := " + AsBool(Expr(right, mode)), right); });
    Emit("if " + evaluates + " then " + block + " else {  }", e);
    return {t, true};
  }
  const int after = Label();
  Emit("if " + skips + " then " + Goto(after), e);
  const Val r = Expr(right, mode);
  Emit(t + " := " + AsBool(r), e);
  Place(after);
  return {t, true};
}

// `c ? a : z` where a branch calls a function: each branch's steps only where C evaluates it, its
// value into one temporary.
Val Lowering::LazyChoice(CXCursor e, const std::string& c, Mode mode) {
  const std::vector<CXCursor> kids = Children(e);
  const std::string t = Temp(false);
  if (atomic_ != nullptr) {  // structured, as an `if` in an atomic section
    const auto branch = [&](CXCursor x) {
      return Block([&] { Emit(t + " := " + AsInt(Expr(x, mode)), x); });
    };
    const std::string then_block = branch(kids[1]);
    Emit("if " + c + " then " + then_block + " else " + branch(kids[2]), e);
    return {t, false};
  }
  const int other = Label();
  const int after = Label();
  Emit("if !" + c + " then " + Goto(other), e);
  Emit(t + " := " + AsInt(Expr(kids[1], mode)), e);
  Emit(Goto(after), e);
  Place(other);
  Emit(t + " := " + AsInt(Expr(kids[2], mode)), e);
  Place(after);
  return {t, false};
}

std::string Lowering::Arith(const std::string& op, const std::string& a, const std::string& b) {
  if (op == "+" || op == "-" || op == "*") return "(" + a + " " + op + " " + b + ")";
  // C divides truncating toward zero; .drb's `/` is Euclidean (the remainder is never negative).
  std::string quotient =
      "(if " + a + " >= 0 then " + a + " / " + b + " else -((-" + a + ") / " + b + "))";
  if (op == "/") return quotient;
  if (op == "%") return "(" + a + " - " + b + " * " + quotient + ")";
  return "";
}

Val Lowering::CallValue(CXCursor call, Mode mode) {
  const std::string name = Spelling(call);
  const bool boolean = clang_getCanonicalType(clang_getCursorType(call)).kind == CXType_Bool ||
                       name == "__VERIFIER_nondet_bool" || name == "__VERIFIER_nondet__Bool";
  if (mode == Mode::kCount) return {boolean ? "false" : "0", boolean};
  if (!name.starts_with("__VERIFIER_nondet_")) {
    // A function's value: its call runs before the rest of the expression, into a temporary
    // (C leaves the order of an operator's operands open); after `&&` or `||` and in a branch
    // of `?:`, Binary and Value have made its steps conditional (LazyCall, LazyChoice).
    const Var t = Scalar(Temp(boolean), boolean);
    Call(call, &t);
    return {t.name, boolean};
  }
  const std::string t = Temp(boolean);
  if (boolean) {
    Emit(t + " := *", call);
    return {t, boolean};
  }
  // Any value of the call's type in ILP32, and no other (an int is never 2^31).
  const IntegerType type = IntegerOf(clang_getCursorType(call));
  if (type.bits == 0) Refuse(call, "a nondeterministic value of this type");
  const std::string range = type.is_unsigned ? t + " >= 0 && " + t + " < " + PowerOfTwo(type.bits)
                                             : t + " >= -" + PowerOfTwo(type.bits - 1) + " && " +
                                                   t + " < " + PowerOfTwo(type.bits - 1);
  if (atomic_ != nullptr) {
    Emit(t + " := *", call);
    Emit("assume " + range, call);
  } else {
    Emit("atomic { " + t + " := *; assume " + range + " }", call);
  }
  return {t, boolean};
}

}  // namespace druba::c::internal
