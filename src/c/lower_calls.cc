// The C kind's calls and assignments (lowering.h): the pthread and SV-COMP functions as the .drb
// statements that mean them, other functions inlined, and the program printed.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <vector>

#include "c/lowering.h"

namespace druba::c::internal {

namespace {

std::vector<CXCursor> Arguments(CXCursor call) {
  std::vector<CXCursor> out;
  const int n = clang_Cursor_getNumArguments(call);
  out.reserve(static_cast<std::size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i)
    out.push_back(clang_Cursor_getArgument(call, static_cast<unsigned>(i)));
  return out;
}

// The variable `&x` names.
CXCursor AddressOf(CXCursor arg) {
  const CXCursor b = Bare(arg);
  if (KindOf(b) == CXCursor_UnaryOperator && OperatorOf(b) == "&") {
    const CXCursor x = Bare(Children(b)[0]);
    if (KindOf(x) == CXCursor_DeclRefExpr) return x;
  }
  Refuse(arg, "an argument other than `&variable`");
}

// Whether evaluating e could change a variable: an assignment, `++`, `--` or a call in it.
bool HasEffects(CXCursor e) {
  const CXCursorKind k = KindOf(e);
  if (k == CXCursor_CallExpr || k == CXCursor_CompoundAssignOperator) return true;
  if (k == CXCursor_UnaryOperator || k == CXCursor_BinaryOperator) {
    const std::string op = OperatorOf(e);
    if (op == "=" || op.ends_with("++") || op.ends_with("--")) return true;
  }
  const std::vector<CXCursor> kids = Children(e);
  return std::any_of(kids.begin(), kids.end(), HasEffects);
}

bool IsError(const std::string& name) {
  return name == "reach_error" || name == "__VERIFIER_error" || name == "__assert_fail" ||
         name == "__assert_perror_fail" || name == "__assert";
}

}  // namespace

void Lowering::Assign(const Var& target, CXCursor rhs, CXCursor at) {
  if (target.mutex || target.handle) Refuse(at, "an assignment to a mutex or thread handle");
  const CXCursor b = Bare(rhs);
  if (KindOf(b) == CXCursor_CallExpr && !Spelling(b).starts_with("__VERIFIER_nondet_")) {
    return Call(b, &target);
  }
  const Val v = Lowered(rhs, target.shared ? 1 : 0);
  Emit(target.name + " := " + (target.boolean ? AsBool(v) : AsInt(v)), at);
}

void Lowering::Update(CXCursor lhs, const std::string& op, std::optional<CXCursor> rhs,
                      CXCursor at) {
  const CXCursor x = Bare(lhs);
  const Var v = Target(lhs);
  Mode mode = Mode::kEmit;
  if (atomic_ == nullptr) {
    reads_ = v.shared ? 1 : 0;
    if (rhs) Expr(*rhs, Mode::kCount);
    if (reads_ + (v.shared ? 1 : 0) > 1) mode = Mode::kHoist;
  }
  const std::string now = AsInt(Read(v, mode, x));
  const std::string by = rhs ? AsInt(Expr(*rhs, mode)) : "1";
  std::string value = Arith(op, now, by);
  if (value.empty()) Refuse(at, "the operator '" + op + "='");
  if (v.bits > 0 && (op == "+" || op == "-") && (!rhs || InRange(*rhs, v.bits))) {
    value = WrappedSum(value, op[0], v.bits);  // x++, x -= k: at most one modulus out
  } else if (v.bits > 0) {
    value = Wrapped(value, v.bits);
  }
  Emit(v.name + " := " + (v.boolean ? "(" + value + " != 0)" : value), at);
}

void Lowering::ExprStmt(CXCursor s) {
  const CXCursor b = Bare(s);
  const std::vector<CXCursor> kids = Children(b);
  switch (KindOf(b)) {
    case CXCursor_BinaryOperator: {
      const std::string op = OperatorOf(b);
      if (op == ",") {  // `a = x, b = y;`: one after the other
        ExprStmt(kids[0]);
        return ExprStmt(kids[1]);
      }
      if (op != "=") break;
      return Assign(Target(kids[0]), kids[1], b);
    }
    case CXCursor_CompoundAssignOperator: {
      std::string op = OperatorOf(b);
      op.pop_back();  // "+=" -> "+"
      return Update(kids[0], op, kids[1], b);
    }
    case CXCursor_UnaryOperator: {
      const std::string op = OperatorOf(b);
      if (op.ends_with("++") || op.ends_with("--")) {
        return Update(kids[0], op.ends_with("++") ? "+" : "-", std::nullopt, b);
      }
      break;
    }
    case CXCursor_CallExpr:
      return Call(b, nullptr);
    case CXCursor_ConditionalOperator: {  // assert's expansion: c ? (void)0 : __assert_fail(...)
      if (atomic_ != nullptr) Refuse(b, "a conditional statement inside an atomic section");
      const int other = Label();
      const int after = Label();
      Emit("if !" + Condition(kids[0]) + " then " + Goto(other), b);
      ExprStmt(kids[1]);
      Emit(Goto(after), b);
      Place(other);
      ExprStmt(kids[2]);
      Place(after);
      return;
    }
    case CXCursor_IntegerLiteral:
    case CXCursor_DeclRefExpr:
      return;  // no effect
    default:
      break;
  }
  Refuse(b, "an expression statement of this kind");
}

void Lowering::Call(CXCursor call, const Var* result) {
  const std::string name = Spelling(call);
  const std::vector<CXCursor> args = Arguments(call);
  if (Builtin(name, call, args)) {
    if (result != nullptr) Refuse(call, "the value of '" + name + "'");
    return;
  }
  const auto fn = functions_.find(name);
  if (fn == functions_.end())
    Refuse(call, "a call of '" + name + "', a function with no body here");
  if (!name.starts_with("__VERIFIER_atomic_") || atomic_ != nullptr) {
    return Inline(fn->second, call, args, result);
  }
  Section(call, true);
  Inline(fn->second, call, args, result);
  Section(call, false);
}

bool Lowering::Builtin(const std::string& name, CXCursor call, const std::vector<CXCursor>& args) {
  if (IsError(name)) {
    Emit("assert __exited", call);  // after main returned, no thread runs on to it
  } else if (name == "abort") {
    Emit("assume false", call);
  } else if (name == "exit" || name == "_exit") {
    if (atomic_ != nullptr) Refuse(call, "exit inside an atomic section");
    Emit("__exited := true", call);
    Emit("assume false", call);
  } else if (name == "__VERIFIER_assume" || name == "assume_abort_if_not") {
    Emit("assume " + Condition(args.at(0)), call);
  } else if (name == "__VERIFIER_atomic_begin" || name == "__VERIFIER_atomic_end") {
    Section(call, name.ends_with("begin"));
  } else if (name == "pthread_create") {
    Create(call, args);
  } else if (name == "pthread_join") {
    const CXCursor h = Bare(args.at(0));
    const auto it = handles_.find(Usr(clang_getCursorReferenced(h)));
    if (KindOf(h) != CXCursor_DeclRefExpr || it == handles_.end()) {
      Refuse(call, "a join of a thread no pthread_create before it started");
    }
    // With roles (RolesLoop) a thread's number names no role: which thread took it is open.
    if (roles_) Refuse(call, "pthread_join beside threads created without bound");
    Emit("await pc[" + std::to_string(it->second) + "] == end", call);
  } else if (name == "pthread_mutex_lock" || name == "pthread_mutex_unlock" ||
             name == "pthread_mutex_init") {
    const Var m = VarOf(AddressOf(args.at(0)));
    if (!m.mutex) Refuse(args[0], "a mutex that is not a pthread_mutex_t variable");
    Emit(name.ends_with("init")                                ? m.name + " := false"
         : name.ends_with("lock") && !name.ends_with("unlock") ? "lock(" + m.name + ")"
                                                               : "unlock(" + m.name + ")",
         call);
  } else if (name == "pthread_exit") {
    if (atomic_ != nullptr) Refuse(call, "pthread_exit inside an atomic section");
    Emit("end", call);
  } else if (name == "printf" || name == "puts" || name == "putchar" || name == "fflush") {
    // output, which the property does not see; its arguments' effects would be lost
    for (const CXCursor a : args) {
      if (HasEffects(a)) Refuse(a, "an argument of '" + name + "' that changes something");
    }
  } else if (name == "pthread_mutex_destroy" || name.starts_with("__VERIFIER_nondet_")) {
    // nothing happens that druba models (a value dropped)
  } else {
    return false;
  }
  return true;
}

void Lowering::Section(CXCursor at, bool begin) {
  if (begin) {
    if (atomic_ != nullptr) Refuse(at, "an atomic section inside another");
    section_.clear();
    atomic_ = &section_;
    return;
  }
  if (atomic_ != &section_) Refuse(at, "the end of an atomic section that did not begin");
  atomic_ = nullptr;
  if (section_.empty()) return;
  std::string body = "atomic {";
  for (std::size_t i = 0; i < section_.size(); ++i) body += (i > 0 ? "; " : " ") + section_[i];
  Emit(body + " }", at);
}

void Lowering::Create(CXCursor call, const std::vector<CXCursor>& args) {
  if (loop_depth_ > 0) {
    Refuse(call,
           "pthread_create in a loop other than main's own without bound (`while (1)` or `while "
           "(__VERIFIER_nondet_int())` around the call alone)");
  }
  if (atomic_ != nullptr) Refuse(call, "pthread_create inside an atomic section");
  const CXCursor handle = AddressOf(args.at(0));
  const std::string name = ThreadFunction(call);
  const std::string flag = Fresh("started_" + name);
  globals_.push_back("shared bool " + flag + " = false;");
  handles_[Usr(clang_getCursorReferenced(handle))] = threads_.size();
  threads_.push_back({Fresh(name), name, flag, call, {}});
  Emit(flag + " := true", call);
}

std::string Lowering::ThreadFunction(CXCursor call) {
  const std::vector<CXCursor> args = Arguments(call);
  if (args.size() != 4) Refuse(call, "a pthread_create without its four arguments");
  const CXCursor fn = Bare(args[2]);
  std::string name = Spelling(fn);
  if (KindOf(fn) != CXCursor_DeclRefExpr || !functions_.contains(name) || name == "main") {
    Refuse(args[2], "a thread function that is not a function defined here");
  }
  const std::optional<long long> arg = IntegerValue(Bare(args[3]));
  if (!arg || *arg != 0) Refuse(args[3], "a thread argument other than 0");
  return name;
}

namespace {

// The one call a loop's body makes, when it is all the body does.
std::optional<CXCursor> OnlyCall(CXCursor body) {
  const CXCursor b = Bare(body);
  if (KindOf(b) == CXCursor_CallExpr) return b;
  if (KindOf(b) != CXCursor_CompoundStmt) return std::nullopt;
  std::optional<CXCursor> call;
  for (const CXCursor s : Children(b)) {
    if (KindOf(s) == CXCursor_NullStmt) continue;
    if (call) return std::nullopt;
    call = OnlyCall(s);
    if (!call) return std::nullopt;
  }
  return call;
}

// A loop without end: `while (c)` or `do ... while (c)` with c a nonzero constant, `for (;;)`;
// its body.
std::optional<CXCursor> EndlessBody(CXCursor s) {
  const std::vector<CXCursor> kids = Children(s);
  if (KindOf(s) == CXCursor_WhileStmt || KindOf(s) == CXCursor_DoStmt) {
    const bool is_do = KindOf(s) == CXCursor_DoStmt;
    const std::optional<long long> c = IntegerValue(is_do ? kids[1] : kids[0]);
    if (c && *c != 0) return is_do ? kids[0] : kids[1];
  } else if (KindOf(s) == CXCursor_ForStmt) {
    const ForParts parts = ForHeader(s);
    if (!parts.init && !parts.cond && !parts.inc) return parts.body;
  }
  return std::nullopt;
}

// A declaration of thread handles only, none given a value.
bool HandlesOnly(CXCursor decl_stmt) {
  const std::vector<CXCursor> decls = Children(decl_stmt);
  return std::all_of(decls.begin(), decls.end(), [](CXCursor d) {
    const std::string type = Text(clang_getTypeSpelling(clang_getCursorType(d)));
    const std::vector<CXCursor> parts = Children(d);  // a type's name, an initial value
    return KindOf(d) == CXCursor_VarDecl && type.find("pthread_t") != std::string::npos &&
           std::none_of(parts.begin(), parts.end(),
                        [](CXCursor p) { return clang_isExpression(KindOf(p)) != 0; });
  });
}

}  // namespace

std::optional<CXCursor> Lowering::Family(CXCursor main) const {
  std::optional<CXCursor> call;
  for (const CXCursor body : Children(main)) {
    if (KindOf(body) != CXCursor_CompoundStmt) continue;
    for (const CXCursor s : Children(body)) {
      const CXCursorKind k = KindOf(s);
      if (k == CXCursor_NullStmt || (k == CXCursor_DeclStmt && HandlesOnly(s))) continue;
      if (k == CXCursor_ReturnStmt && call) continue;  // after an endless loop: never reached
      const std::optional<CXCursor> loop = call ? std::nullopt : EndlessBody(s);
      if (!loop) return std::nullopt;
      call = OnlyCall(*loop);
      if (!call || Spelling(*call) != "pthread_create") return std::nullopt;
    }
  }
  return call;
}

std::optional<Lowering::RolesLoopAt> Lowering::RolesLoop(CXCursor main) const {
  for (const CXCursor body : Children(main)) {
    if (KindOf(body) != CXCursor_CompoundStmt) continue;
    const std::vector<CXCursor> top = Children(body);
    for (std::size_t k = 0; k < top.size(); ++k) {
      const CXCursor s = top[k];
      std::optional<CXCursor> inside = EndlessBody(s);
      const bool endless = inside.has_value();
      if (!endless && KindOf(s) == CXCursor_WhileStmt) {
        // `while (__VERIFIER_nondet_int()) pthread_create(...)`: any number of threads.
        const CXCursor cond = Bare(Children(s)[0]);
        if (KindOf(cond) == CXCursor_CallExpr && Spelling(cond).starts_with("__VERIFIER_nondet_")) {
          inside = Children(s)[1];
        }
      }
      if (!inside) continue;
      const std::optional<CXCursor> call = OnlyCall(*inside);
      if (!call || Spelling(*call) != "pthread_create") continue;
      // After an endless loop main runs nothing more (a return is never reached).
      for (std::size_t after = k + 1; endless && after < top.size(); ++after) {
        const CXCursorKind a = KindOf(top[after]);
        if (a != CXCursor_NullStmt && a != CXCursor_ReturnStmt) return std::nullopt;
      }
      RolesLoopAt at{s, *call, endless, {}};
      for (std::size_t before = 0; endless && before < k; ++before) {
        const CXCursor b = Bare(top[before]);
        if (KindOf(b) == CXCursor_NullStmt || (KindOf(b) == CXCursor_DeclStmt && HandlesOnly(b))) {
          continue;
        }
        if (KindOf(b) != CXCursor_CallExpr || Spelling(b) != "pthread_create") {
          at.fixed.clear();
          break;
        }
        at.fixed.push_back(b);
      }
      return at;
    }
  }
  return std::nullopt;
}

void Lowering::FamilyLoop(CXCursor s) {
  if (atomic_ != nullptr) Refuse(s, "a loop inside an atomic section");
  const std::string name = ThreadFunction(roles_->call);
  const std::string flag = Fresh("started_" + name);
  globals_.push_back("shared bool " + flag + " = false;");
  threads_.push_back({Fresh(name), name, flag, roles_->call, {}});
  // One flag admits any number of threads: a thread created later is one that has not moved yet.
  Emit(flag + " := true", roles_->call);
  if (roles_->endless) {
    Emit("assume false", s);  // main creates threads for ever
    main_stays_ = true;
  }
}

std::string Lowering::RoleChoice(const std::vector<std::vector<std::string>>& names) {
  std::string out = "choose";
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    const std::string first = names[t].empty() ? "end" : names[t][0];
    out += t == 0 ? " { " : " or { ";
    if (t + 1 < threads_.size()) {  // main, a fixed thread: one thread takes the role
      const std::string claimed = Fresh("__role_" + threads_[t].name);
      globals_.push_back("shared bool " + claimed + " = false;");
      out.append("assume !").append(claimed).append("; ").append(claimed).append(" := true; ");
    }
    out.append("goto ").append(first).append(" }");
  }
  return out;
}

void Lowering::Inline(CXCursor fn, CXCursor call, const std::vector<CXCursor>& args,
                      const Var* result) {
  const std::string name = Spelling(fn);
  for (const Frame& f : frames_) {
    if (f.function == name) Refuse(call, "a recursive call of '" + name + "'");
  }
  std::vector<CXCursor> params;
  CXCursor body{};
  for (const CXCursor kid : Children(fn)) {
    if (KindOf(kid) == CXCursor_ParmDecl) params.push_back(kid);
    if (KindOf(kid) == CXCursor_CompoundStmt) body = kid;
  }
  if (params.size() != args.size()) Refuse(call, "a call with as many arguments as not declared");
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (clang_getCursorType(params[i]).kind != CXType_Pointer) {
      Assign(Declare(params[i], false, name + "_"), args[i], call);
    } else if (const std::optional<long long> null = IntegerValue(Bare(args[i]));
               null && *null == 0) {  // a null pointer (`thr2(0)`): any use of it is refused
      nulls_.insert(Usr(params[i]));
    } else if (const Var* passed = PointeeOf(Bare(args[i]))) {  // a pointer passed on
      pointers_[Usr(params[i])] = *passed;
    } else if (KindOf(Bare(args[i])) == CXCursor_DeclRefExpr &&
               VarOf(Bare(args[i])).size > 0) {  // an array: `p[i]` is its element i
      pointers_[Usr(params[i])] = VarOf(Bare(args[i]));
    } else {  // `&x`: the parameter names x in this call (a call of its own: no recursion)
      pointers_[Usr(params[i])] = VarOf(AddressOf(args[i]));
    }
  }
  Frame frame{name, Label(), "", false, false, {}, false, {}};
  if (result != nullptr) {
    frame.result = result->name;
    frame.result_boolean = result->boolean;
    if (result->shared) Refuse(call, "a function's value stored straight into a global variable");
  }
  frames_.push_back(frame);
  Stmt(body);
  const int exit = frames_.back().exit;
  frames_.pop_back();
  if (atomic_ == nullptr) Place(exit);
}

std::string Lowering::Print() {
  // Each thread's step names, c12 for line 12 (unique within a template: across the roles, when
  // one template holds them all).
  std::vector<std::vector<std::string>> names(threads_.size());
  std::map<std::string, int> seen;
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    if (!roles_) seen.clear();
    for (const Step& s : threads_[t].steps) {
      const std::string base = "c" + std::to_string(s.line);
      const int k = ++seen[base];
      names[t].push_back(k == 1 ? base : base + "_" + std::to_string(k));
    }
  }
  std::string choice;
  std::string choice_name;
  if (roles_) {
    choice = RoleChoice(names);
    const std::string base = "c" + std::to_string(Where(roles_->call).line);
    const int k = ++seen[base];
    choice_name = k == 1 ? base : base + "_" + std::to_string(k);
  }
  std::string out = "# Translated by druba from " +
                    std::filesystem::path(file_).filename().string() +
                    " (docs/c.md): a statement's label names its C line, c12 for line 12.\n"
                    "shared bool __exited = false;\n";
  for (const std::string& g : globals_) out += g + "\n";
  for (const Var& v : locals_) {
    out += "local " + TypeOf(v) + Declared(v) + " = " +
           (!v.init.empty() ? v.init
            : v.boolean     ? "false"
                            : "0") +
           ";\n";
  }
  if (roles_) {
    out += "thread " + threads_.back().name + " * 1.. {\n  " + choice_name + ": " + choice + ";\n";
  }
  for (std::size_t t = 0; t < threads_.size(); ++t) {
    if (!roles_) out += "thread " + threads_[t].name + (family_ ? " * 1.. {\n" : " * 1 {\n");
    if (threads_[t].steps.empty() && !roles_) out += "  skip;\n";
    for (std::size_t i = 0; i < names[t].size(); ++i) {
      std::string body = threads_[t].steps[i].body;
      for (std::size_t at = body.find("@L"); at != std::string::npos; at = body.find("@L")) {
        std::size_t end = at + 2;
        while (end < body.size() && std::isdigit(static_cast<unsigned char>(body[end])) != 0) ++end;
        const auto where = target_.at(std::stoi(body.substr(at + 2, end - at - 2)));
        const std::vector<std::string>& of = names[where.first];
        body.replace(at, end - at, where.second >= of.size() ? "end" : of[where.second]);
      }
      // A role's last step goes on to the next role's first: it ends the thread instead.
      const bool last = roles_ && i + 1 == names[t].size() && t + 1 < threads_.size() &&
                        body != "end" && !body.ends_with("end }") && body != "assume false";
      out += "  " + names[t][i] + ": " + body + (last ? "; goto end" : "") + ";\n";
    }
    if (!roles_) out += "}\n";
  }
  if (roles_) out += "}\n";
  return out;
}

}  // namespace druba::c::internal
