// The C kind's statements (lowering.h): control flow as labelled steps and gotos, calls of the
// pthread and SV-COMP functions as the .drb statements that mean them, other calls inlined.
#include <set>
#include <string>
#include <vector>

#include "c/lowering.h"

namespace druba::c::internal {

void Lowering::Body(std::size_t t) {
  current_ = t;
  const Thread& thread = threads_[t];
  const bool main = thread.function == "main";
  frames_.push_back({thread.function, -1, "", false, main, {}, false, {}});
  if (!thread.created.empty()) Emit("await " + thread.created, thread.call);
  const CXCursor fn = functions_.at(thread.function);
  // A thread's argument is 0 (Create): a use of its parameter is refused as unknown.
  for (const CXCursor kid : Children(fn)) {
    if (KindOf(kid) == CXCursor_CompoundStmt) Stmt(kid);
  }
  if (atomic_ != nullptr) Refuse(fn, "an atomic section not ended in its thread");
  if (main && !main_stays_) Emit("__exited := true", fn);  // main returns: the process ends
  main_stays_ = false;
  frames_.pop_back();
  for (const int label : pending_) target_[label] = {t, ~std::size_t{0}};  // the thread's end
  pending_.clear();
}

void Lowering::Return(CXCursor s, const std::vector<CXCursor>& kids) {
  Frame& f = frames_.back();
  if (!kids.empty() && f.exit >= 0 && !f.result.empty()) {
    Assign(Scalar(f.result, f.result_boolean), kids[0], s);
  }
  if (f.exit >= 0) {
    if (atomic_ != nullptr) {  // the atomic function's last statement (Inline)
      f.returned = true;
      return;
    }
    Emit(Goto(f.exit), s);
  } else {
    Emit(f.main ? "atomic { __exited := true; end }" : "end", s);
  }
}

void Lowering::Stmt(CXCursor s) {
  const std::vector<CXCursor> kids = Children(s);
  if (atomic_ != nullptr && frames_.back().returned && KindOf(s) != CXCursor_NullStmt) {
    Refuse(s, "a statement after a return inside an atomic section");
  }
  switch (KindOf(s)) {
    case CXCursor_CompoundStmt:
      for (const CXCursor kid : kids) {
        if (main_stays_) break;
        Stmt(kid);
      }
      return;
    case CXCursor_NullStmt:
      return;
    case CXCursor_DeclStmt:
      return Declarations(s);
    case CXCursor_IfStmt:
      return If(s);
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
      return Loop(s);
    case CXCursor_ForStmt:
      return For(s);
    case CXCursor_SwitchStmt:
      return Switch(s);
    case CXCursor_CaseStmt:
    case CXCursor_DefaultStmt: {
      if (cases_.empty()) Refuse(s, "a case outside a switch");
      for (const auto& [at, label] : cases_.back()) {
        if (clang_equalCursors(at, s) != 0) Place(label);
      }
      return Stmt(kids.back());
    }
    case CXCursor_BreakStmt:
    case CXCursor_ContinueStmt: {
      if (loops_.empty() || atomic_ != nullptr) Refuse(s, "a break or continue here");
      const int to = KindOf(s) == CXCursor_BreakStmt ? loops_.back().first : loops_.back().second;
      if (to < 0) Refuse(s, "a continue in a switch outside a loop");
      Emit(Goto(to), s);
      return;
    }
    case CXCursor_LabelStmt:
    case CXCursor_GotoStmt:
      return LabelOrGoto(s);
    case CXCursor_ReturnStmt:
      return Return(s, kids);
    default:
      if (clang_isExpression(KindOf(s)) != 0) return ExprStmt(s);
      Refuse(s, "the statement '" + Text(clang_getCursorKindSpelling(KindOf(s))) + "'");
  }
}

// A label (a place gotos name) or a goto.
void Lowering::LabelOrGoto(CXCursor s) {
  const std::vector<CXCursor> kids = Children(s);
  if (KindOf(s) == CXCursor_LabelStmt) {
    if (atomic_ != nullptr) {  // one step: only a goto could tell where (SV-COMP's ERROR:)
      if (frames_.back().labels.contains(Spelling(s))) {
        Refuse(s, "a label inside an atomic section that a goto names");
      }
      frames_.back().atomic_labels.insert(Spelling(s));
      for (const CXCursor kid : kids) Stmt(kid);
      return;
    }
    auto [it, fresh] = frames_.back().labels.try_emplace(Spelling(s), next_label_);
    if (fresh) ++next_label_;
    Place(it->second);
    for (const CXCursor kid : kids) Stmt(kid);
    return;
  }
  if (atomic_ != nullptr) Refuse(s, "a goto inside an atomic section");
  if (frames_.back().atomic_labels.contains(Spelling(kids.at(0)))) {
    Refuse(s, "a goto into an atomic section");
  }
  auto [it, fresh] = frames_.back().labels.try_emplace(Spelling(kids.at(0)), next_label_);
  if (fresh) ++next_label_;
  Emit(Goto(it->second), s);
}

void Lowering::Declarations(CXCursor s) {
  for (const CXCursor decl : Children(s)) {
    if (KindOf(decl) != CXCursor_VarDecl) Refuse(decl, "a declaration of this kind");
    // A static local is one variable for every thread and every call, given its value once.
    const CX_StorageClass storage = clang_Cursor_getStorageClass(decl);
    if (storage == CX_SC_Static || storage == CX_SC_Extern) {
      Refuse(decl, "a local variable declared static or extern");
    }
    const Var v = Declare(decl, false, frames_.back().function + "_");
    for (const CXCursor init : Children(decl)) {
      if (clang_isExpression(KindOf(init)) == 0) continue;
      if (v.size == 0) {
        Assign(v, init, init);
        continue;
      }
      // `int a[3] = {1, 2};`: each element, the ones not given 0, as C has it (the other
      // expression of an array's declaration is its size).
      if (KindOf(init) == CXCursor_StringLiteral) Refuse(init, "an initial value of this form");
      if (KindOf(init) != CXCursor_InitListExpr) continue;
      const std::vector<CXCursor> values = Children(init);
      if (values.size() > static_cast<std::size_t>(v.size))
        Refuse(init, "more initial values than elements");
      for (long long i = 0; i < v.size; ++i) {
        const Var element = Element(v, std::to_string(i));
        if (i < static_cast<long long>(values.size())) {
          Assign(element, values[static_cast<std::size_t>(i)], init);
        } else {
          Emit(element.name + " := " + (v.boolean ? "false" : "0"), init);
        }
      }
    }
  }
}

// A condition that is a nondeterministic value alone (`if (__VERIFIER_nondet_int())`): either
// branch may be taken, whatever value would be drawn, so the step is a free choice, not a value
// the explicit search samples.
bool Lowering::NondetCall(CXCursor cond) {
  CXCursor b = Bare(cond);
  if (KindOf(b) == CXCursor_UnaryOperator && OperatorOf(b) == "!") b = Bare(Children(b)[0]);
  return KindOf(b) == CXCursor_CallExpr && Spelling(b).starts_with("__VERIFIER_nondet_") &&
         Children(b).size() <= 1;
}

std::string Lowering::IfNot(CXCursor cond, int label) {
  if (NondetCall(cond)) return "choose { skip } or { " + Goto(label) + " }";
  return "if !" + Condition(cond) + " then " + Goto(label);
}

void Lowering::If(CXCursor s) {
  const std::vector<CXCursor> kids = Children(s);
  if (atomic_ != nullptr) {  // structured: the atomic section is one step
    const bool free = NondetCall(kids[0]);
    const std::string c = free ? "" : Condition(kids[0]);
    // A return in a branch ends that branch (`if (c) return 1; else return 0;`); once one branch
    // has returned, a statement after the `if` is refused (Stmt), as after a return.
    bool& returned = frames_.back().returned;
    const std::string then_block = Block([&] { Stmt(kids[1]); });
    const bool then_returned = returned;
    returned = false;
    const std::string else_block = Block([&] {
      if (kids.size() > 2) Stmt(kids[2]);
    });
    returned = returned || then_returned;
    Emit((free ? "choose " : "if " + c + " then ") + then_block + (free ? " or " : " else ") +
             else_block,
         s);
    return;
  }
  const int other = Label();
  Emit(IfNot(kids[0], other), s);
  Stmt(kids[1]);
  if (kids.size() > 2) {
    const int after = Label();
    Emit(Goto(after), s);
    Place(other);
    Stmt(kids[2]);
    Place(after);
  } else {
    Place(other);
  }
}

void Lowering::Loop(CXCursor s) {
  if (roles_ && clang_equalCursors(s, roles_->loop) != 0) return FamilyLoop(s);
  const bool is_do = KindOf(s) == CXCursor_DoStmt;
  const std::vector<CXCursor> kids = Children(s);
  const CXCursor cond = is_do ? kids[1] : kids[0];
  const CXCursor body = is_do ? kids[0] : kids[1];
  if (atomic_ != nullptr) {
    // A spin inside an atomic section (`while (l != s) ;`): while it spins no other thread runs,
    // and no state is reached; the runs that go on are those where it did not spin, as if the
    // section had waited to begin until the condition was false.
    const bool empty = KindOf(body) == CXCursor_NullStmt ||
                       (KindOf(body) == CXCursor_CompoundStmt && Children(body).empty());
    if (!empty) Refuse(s, "a loop inside an atomic section");
    Emit("assume !" + Condition(cond), s);
    return;
  }
  const std::optional<long long> constant = IntegerValue(cond);
  const int top = Label();
  const int test = is_do ? Label() : top;
  const int exit = Label();
  Place(top);
  if (!is_do && constant && *constant == 0) {
    Place(exit);
    return;
  }
  if (!is_do && !constant) Emit(IfNot(cond, exit), s);
  loops_.emplace_back(exit, test);
  ++loop_depth_;
  Stmt(body);
  --loop_depth_;
  loops_.pop_back();
  if (is_do) {
    Place(test);
    if (!constant) {
      Emit("if " + Condition(cond) + " then " + Goto(top), s);
    } else if (*constant != 0) {
      Emit(Goto(top), s);
    }
  } else {
    Emit(Goto(top), s);
  }
  Place(exit);
}

namespace {

// Whether a value of `type` (ILP32) may be `v`.
bool Holds(const IntegerType& type, long long v) {
  if (type.bits >= 63) return type.is_unsigned ? v >= 0 : true;
  if (type.is_unsigned) return v >= 0 && v < (1LL << type.bits);
  return v >= -(1LL << (type.bits - 1)) && v < (1LL << (type.bits - 1));
}

// The case and default labels of a switch's body, not those of a switch inside it.
void CasesOf(CXCursor s, std::vector<CXCursor>& out) {
  for (const CXCursor kid : Children(s)) {
    const CXCursorKind k = KindOf(kid);
    if (k == CXCursor_CaseStmt || k == CXCursor_DefaultStmt) out.push_back(kid);
    if (k != CXCursor_SwitchStmt) CasesOf(kid, out);
  }
}

}  // namespace

// `switch (e)`: e once, into a temporary; a goto to the first case whose value it equals, else to
// default or past the switch; the body as written, each case a label (falling through as in C).
// On a nondeterministic value alone (`switch (__VERIFIER_nondet_int())`, pthread-ext's sliced
// drivers) the step is a free choice among the cases whose values the type holds, and default (or
// past the switch) when some value of the type is none of them: no value is left for the explicit
// search to sample, which proves nothing by exhausting the values it takes.
void Lowering::Switch(CXCursor s) {
  if (atomic_ != nullptr) Refuse(s, "a switch inside an atomic section");
  const std::vector<CXCursor> kids = Children(s);
  const CXCursor chosen = Bare(kids.front());
  const IntegerType type = IntegerOf(clang_getCursorType(chosen));
  const bool free = KindOf(chosen) == CXCursor_CallExpr &&
                    Spelling(chosen).starts_with("__VERIFIER_nondet_") &&
                    Children(chosen).size() <= 1 && type.bits > 0;
  Var value;
  if (!free) {
    value = Scalar(Temp(false), false);
    Assign(value, kids.front(), s);
  }
  std::vector<CXCursor> labels;
  CasesOf(kids.back(), labels);
  const int exit = Label();
  int otherwise = exit;
  cases_.emplace_back();
  std::vector<std::string> choices;
  std::set<long long> values;
  for (const CXCursor c : labels) {
    const int label = Label();
    cases_.back().emplace_back(c, label);
    if (KindOf(c) == CXCursor_DefaultStmt) {
      otherwise = label;
      continue;
    }
    const std::optional<long long> v = IntegerValue(Children(c).front());
    if (!v) Refuse(c, "a case whose value is not a constant");
    if (!free) {
      Emit("if " + value.name + " == " + std::to_string(*v) + " then " + Goto(label), c);
    } else if (Holds(type, *v) && values.insert(*v).second) {
      choices.push_back("{ " + Goto(label) + " }");
    }
  }
  // The values of `type` that no case names: some are left unless the cases name them all.
  const bool rest =
      !free || type.bits >= 62 || static_cast<long long>(values.size()) < (1LL << type.bits);
  if (free && rest) choices.push_back("{ " + Goto(otherwise) + " }");
  if (free && choices.size() == 1) {
    Emit(choices.front().substr(2, choices.front().size() - 4), s);  // the one way on
  } else if (free) {
    std::string step = "choose " + choices.front();
    for (std::size_t i = 1; i < choices.size(); ++i) step.append(" or ").append(choices[i]);
    Emit(step, s);
  } else {
    Emit(Goto(otherwise), s);
  }
  loops_.emplace_back(exit, loops_.empty() ? -1 : loops_.back().second);
  Stmt(kids.back());
  loops_.pop_back();
  cases_.pop_back();
  Place(exit);
}

void Lowering::For(CXCursor s) {
  if (roles_ && clang_equalCursors(s, roles_->loop) != 0) return FamilyLoop(s);
  if (atomic_ != nullptr) Refuse(s, "a loop inside an atomic section");
  const ForParts parts = ForHeader(s);
  const CXCursor body = parts.body;
  if (parts.init) Stmt(*parts.init);
  const int top = Label();
  const int next = Label();
  const int exit = Label();
  Place(top);
  if (parts.cond) Emit(IfNot(*parts.cond, exit), s);
  loops_.emplace_back(exit, next);
  ++loop_depth_;
  Stmt(body);
  --loop_depth_;
  loops_.pop_back();
  Place(next);
  if (parts.inc) Stmt(*parts.inc);
  Emit(Goto(top), s);
  Place(exit);
}

}  // namespace druba::c::internal
