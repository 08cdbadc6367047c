// C to .drb (translate.h, docs/c.md), the lowering's state: one pass over clang's syntax tree.
// Declarations become shared and per-thread variables; main and every thread pthread_create
// starts become thread templates, each of one copy, whose statements are the C statements cut so
// that each step touches at most one shared variable; called functions are inlined. Expressions
// are lower_expressions.cc's, statements lower_statements.cc's.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "c/clang_ast.h"

namespace druba::c::internal {

struct Var {
  std::string name;
  bool shared = false;
  bool boolean = false;
  bool mutex = false;
  bool handle = false;  // a pthread_t
  long long size = 0;   // an array's elements (0: not an array)
  int bits = 0;         // an unsigned type's width (IntegerOf): its values wrap
  std::string init;     // a thread-local global's initial value (a local: "" is 0)
};

// A thread-local scalar variable: a temporary, or where a function's value goes.
inline Var Scalar(std::string name, bool boolean) {
  Var v;
  v.name = std::move(name);
  v.boolean = boolean;
  return v;
}

struct Val {
  std::string text;
  bool boolean = false;
};

struct Step {
  std::string body;  // "@L<id>" stands for the statement label id names
  unsigned line = 0;
};

struct Thread {
  std::string name;
  std::string function;
  std::string created;  // the shared flag its pthread_create sets ("": main)
  CXCursor call{};
  std::vector<Step> steps;
};

struct Frame {
  std::string function;
  int exit = -1;       // the label after an inlined body (-1: a thread's own function)
  std::string result;  // where a `return e` of an inlined function puts e
  bool result_boolean = false;
  bool main = false;
  std::map<std::string, int> labels;
  bool returned = false;                // inside an atomic section: a return was read
  std::set<std::string> atomic_labels;  // labels inside atomic sections: no goto may name them
};

enum class Mode { kCount, kEmit, kHoist };

inline constexpr long long kMaxArray = 4096;  // the .drb arrays' limit (docs/drb.md)

inline const std::set<std::string>& Reserved() {
  static const std::set<std::string> words{
      "shared", "local",         "int",    "nat",    "bool",   "thread", "abstraction",
      "track",  "predicate",     "pc",     "self",   "true",   "false",  "forall",
      "exists", "count",         "assume", "assert", "if",     "then",   "else",
      "goto",   "while",         "do",     "atomic", "choose", "or",     "skip",
      "end",    "fetch_and_add", "await",  "lock",   "unlock", "check",  "deadlock",
      "unsafe", "initially",     "threads"};
  return words;
}

class Lowering {
 public:
  explicit Lowering(const std::string& file) : unit_(file), file_(file) {}

  std::string Run() {
    CXCursor main{};
    bool has_main = false;
    for (const CXCursor c : Children(unit_.Root())) {
      if (!InMainFile(c)) continue;
      const CXCursorKind k = clang_getCursorKind(c);
      if (k == CXCursor_VarDecl) Global(c);
      if (k == CXCursor_FunctionDecl && clang_isCursorDefinition(c) != 0) {
        functions_[Spelling(c)] = c;
        if (Spelling(c) == "main") {
          main = c;
          has_main = true;
        }
      }
    }
    if (!has_main) throw InputError({file_, 0, 0}, "the C program has no main");
    const std::optional<CXCursor> call = Family(main);
    if (!call) roles_ = RolesLoop(main);
    if (call) {
      // Threads created without bound and nothing else: N of them from the start, each waiting
      // as long as it likes before its first step, are the runs that create N (docs/c.md).
      const std::string function = ThreadFunction(*call);
      threads_.push_back({Fresh(function), function, "", *call, {}});
      family_ = true;
    } else if (roles_ && !roles_->fixed.empty()) {
      // main only starts fixed threads before its endless loop: it need not be a role, and its
      // threads, as the family's, are present from the start (one not yet created is one that
      // has not moved yet).
      for (const CXCursor start : roles_->fixed) {
        const std::string function = ThreadFunction(start);
        threads_.push_back({Fresh(function), function, "", start, {}});
      }
      const std::string function = ThreadFunction(roles_->call);
      threads_.push_back({Fresh(function), function, "", roles_->call, {}});
    } else {
      threads_.push_back({"main", "main", "", main, {}});
    }
    for (std::size_t t = 0; t < threads_.size(); ++t) Body(t);
    return Print();
  }

 private:
  // ---- names and variables ----
  std::string Fresh(std::string base) {
    std::replace(base.begin(), base.end(), '.', '_');
    if (Reserved().contains(base) || base.starts_with("__")) base += "_";
    std::string name = base;
    for (int k = 2; used_.contains(name); ++k) name = base + "_" + std::to_string(k);
    used_.insert(name);
    return name;
  }
  static std::string Usr(CXCursor decl) { return Text(clang_getCursorUSR(decl)); }

  Var Declare(CXCursor decl, bool shared, const std::string& prefix) {
    if (const auto it = vars_.find(Usr(decl)); it != vars_.end()) return it->second;
    const CXType type = clang_getCursorType(decl);
    const std::string spelled = Text(clang_getTypeSpelling(type));
    Var v;
    v.shared = shared;
    if (spelled.find("pthread_mutex_t") != std::string::npos) {
      if (!shared) Refuse(decl, "a mutex that is not a global variable");
      if (spelled.find('[') != std::string::npos) Refuse(decl, "an array of mutexes");
      v.mutex = v.boolean = true;
    } else if (spelled.find("pthread_t") != std::string::npos) {
      v.handle = true;
    } else {
      CXType element = clang_getCanonicalType(type);
      if (element.kind == CXType_ConstantArray) {  // an array of integers (docs/c.md)
        v.size = clang_getArraySize(element);
        element = clang_getCanonicalType(clang_getArrayElementType(element));
        if (v.size < 1 || v.size > kMaxArray) {
          Refuse(decl, "an array of " + std::to_string(v.size) + " elements (druba's have 1 to " +
                           std::to_string(kMaxArray) + ")");
        }
      }
      const IntegerType integer = IntegerOf(element);
      v.bits = integer.is_unsigned ? integer.bits : 0;
      v.boolean = element.kind == CXType_Bool;
      if (!v.boolean && integer.bits == 0) Refuse(decl, "a variable of type '" + spelled + "'");
    }
    v.name = Fresh(prefix + Spelling(decl));
    vars_[Usr(decl)] = v;
    if (!v.handle && !shared) locals_.push_back(v);
    return v;
  }

  // A global variable: shared, or with `__thread` each thread's own (a local of the program,
  // each thread's copy starting at the initial value).
  void Global(CXCursor decl) {
    const bool shared = clang_getCursorTLSKind(decl) == CXTLS_None;
    const Var v = Declare(decl, shared, "");
    if (v.handle) return;
    if (!shared && v.mutex) Refuse(decl, "a thread-local mutex");
    const std::string zero = v.boolean ? "false" : "0";
    std::vector<std::string> init(static_cast<std::size_t>(std::max(v.size, 1LL)), zero);
    for (const CXCursor kid : Children(decl)) {
      if (clang_isExpression(clang_getCursorKind(kid)) == 0 || v.mutex) continue;
      const bool list = KindOf(kid) == CXCursor_InitListExpr;
      if (v.size > 0 && !list && KindOf(kid) != CXCursor_StringLiteral) continue;  // the size
      if (list != (v.size > 0)) Refuse(kid, "an initial value of this form");
      const std::vector<CXCursor> values = list ? Children(kid) : std::vector<CXCursor>{kid};
      if (values.size() > init.size()) Refuse(kid, "more initial values than elements");
      for (std::size_t i = 0; i < values.size(); ++i) {
        const std::optional<long long> value = IntegerValue(values[i]);
        if (!value) Refuse(values[i], "an initial value that is not a constant");
        init[i] = v.boolean ? (*value != 0 ? "true" : "false") : Constant(*value, v.bits);
      }
    }
    std::string value = init[0];
    if (std::any_of(init.begin(), init.end(), [&](const std::string& x) { return x != init[0]; })) {
      value = "{";
      for (std::size_t i = 0; i < init.size(); ++i) value += (i > 0 ? ", " : "") + init[i];
      value += "}";
    }
    if (!shared) {
      locals_.back().init = value;  // Declare put it last
      return;
    }
    globals_.push_back("shared " + TypeOf(v) + Declared(v) + " = " + value + ";");
  }
  // A constant stored in a variable of `bits` unsigned bits (0: signed, kept).
  static std::string Constant(long long value, int bits) {
    if (bits == 64) return std::to_string(static_cast<unsigned long long>(value));
    if (bits == 0) return std::to_string(value);
    const long long m = 1LL << bits;
    return std::to_string(((value % m) + m) % m);
  }
  // A variable's `.drb` type: an unsigned type of b bits is `int[0, 2^b - 1]` (its values
  // wrap, so every write stays inside, and the solvers know the range), a signed one `int`.
  static std::string TypeOf(const Var& v) {
    if (v.boolean) return "bool ";
    if (v.bits == 0) return "int ";
    const unsigned long long most = v.bits >= 64 ? ~0ULL : (1ULL << v.bits) - 1;
    return "int[0, " + std::to_string(most) + "] ";
  }
  // A variable's name as declared: `a[4]` for an array.
  static std::string Declared(const Var& v) {
    return v.size > 0 ? v.name + "[" + std::to_string(v.size) + "]" : v.name;
  }
  // The element `a[index]` of an array, as a variable of its own.
  static Var Element(Var array, const std::string& index) {
    array.name += "[" + index + "]";
    array.size = 0;
    return array;
  }
  // The array a subscript's base names.
  const Var& ArrayOf(CXCursor base) {
    const CXCursor b = Bare(base);
    if (KindOf(b) != CXCursor_DeclRefExpr) Refuse(base, "a subscript of something but an array");
    const Var* bound = PointeeOf(b);  // a pointer parameter given an array
    const Var& v = bound != nullptr ? *bound : VarOf(b);
    if (v.size == 0) Refuse(base, "a subscript of something but an array");
    return v;
  }
  // An assignment's index: where it reads a shared variable, read first, into a temporary of its
  // own (the element's write is then the step's only shared access).
  std::string Index(CXCursor e) {
    if (atomic_ != nullptr) return AsInt(Expr(e, Mode::kEmit));
    reads_ = 0;
    Expr(e, Mode::kCount);
    if (reads_ == 0) return AsInt(Expr(e, Mode::kEmit));
    std::string t = Temp(false);
    Emit(t + " := " + AsInt(Lowered(e, 0)), e);
    return t;
  }

  const Var& VarOf(CXCursor ref) {
    const std::string usr = Usr(clang_getCursorReferenced(ref));
    if (pointers_.contains(usr)) Refuse(ref, "a pointer used as a value (only `*p` is read)");
    if (nulls_.contains(usr)) Refuse(ref, "a use of a pointer parameter given a null pointer");
    const auto it = vars_.find(usr);
    if (it == vars_.end()) Refuse(ref, "a reference to '" + Spelling(ref) + "'");
    return it->second;
  }
  // The variable a pointer parameter points to, when `ref` names one (Inline binds it).
  const Var* PointeeOf(CXCursor ref) const {
    if (KindOf(ref) != CXCursor_DeclRefExpr) return nullptr;
    const auto it = pointers_.find(Usr(clang_getCursorReferenced(ref)));
    return it == pointers_.end() ? nullptr : &it->second;
  }
  // The variable `*p` names (p a pointer parameter), or nullptr when `e` is not of that form.
  const Var* Deref(CXCursor e) const {
    const CXCursor b = Bare(e);
    if (KindOf(b) != CXCursor_UnaryOperator || OperatorOf(b) != "*") return nullptr;
    const Var* v = PointeeOf(Bare(Children(b)[0]));
    if (v == nullptr) Refuse(b, "`*` of something but a pointer parameter bound to `&variable`");
    return v;
  }
  // The variable an assignment's left side names: `x`, `*p` or `a[i]`.
  Var Target(CXCursor lhs) {
    if (const Var* v = Deref(lhs)) return *v;
    const CXCursor x = Bare(lhs);
    if (KindOf(x) == CXCursor_ArraySubscriptExpr) {
      const std::vector<CXCursor> kids = Children(x);
      const Var& array = ArrayOf(kids[0]);
      return Element(array, Index(kids[1]));
    }
    if (KindOf(x) != CXCursor_DeclRefExpr) Refuse(lhs, "an assignment to something but a variable");
    return VarOf(x);
  }

  std::string Temp(bool boolean) {
    std::string name = Fresh("tmp");
    locals_.push_back(Scalar(name, boolean));
    return name;
  }

  // ---- steps and labels ----
  int Label() { return next_label_++; }
  void Place(int label) { pending_.push_back(label); }
  static std::string Goto(int label) { return "goto @L" + std::to_string(label); }

  // Inside an atomic section: what `lower()` emits, as a block `{ a; b }` of the section's step
  // (a branch of an `if`), not into the section itself.
  template <class F>
  std::string Block(F&& lower) {
    std::vector<std::string>* outer = atomic_;
    std::vector<std::string> block;
    atomic_ = &block;
    lower();
    atomic_ = outer;
    std::string out = "{ ";
    for (std::size_t i = 0; i < block.size(); ++i) out += (i > 0 ? "; " : "") + block[i];
    return out + " }";
  }

  void Emit(const std::string& body, CXCursor at) {
    if (atomic_ != nullptr) {
      atomic_->push_back(body);
      return;
    }
    std::vector<Step>& steps = threads_[current_].steps;
    for (const int label : pending_) target_[label] = {current_, steps.size()};
    pending_.clear();
    steps.push_back({body, Where(at).line});
  }

  // ---- expressions ----
  Val Read(const Var& v, Mode mode, CXCursor at) {
    if (v.mutex || v.handle) Refuse(at, "a mutex or thread handle used as a value");
    if (v.size > 0) Refuse(at, "an array used as a value");
    if (v.shared && mode == Mode::kCount) ++reads_;
    if (v.shared && mode == Mode::kHoist && atomic_ == nullptr) {
      const std::string t = Temp(v.boolean);
      Emit(t + " := " + v.name, at);
      return {t, v.boolean};
    }
    return {v.name, v.boolean};
  }
  static std::string AsInt(const Val& v) {
    return v.boolean ? "(if " + v.text + " then 1 else 0)" : v.text;
  }
  static std::string AsBool(const Val& v) { return v.boolean ? v.text : "(" + v.text + " != 0)"; }

  // e's value: Value's, wrapped when e's type is unsigned and the value may lie outside it.
  Val Expr(CXCursor e, Mode mode);
  Val Value(CXCursor e, Mode mode);
  bool InRange(CXCursor e, int bits);
  Val Binary(CXCursor e, const std::string& op, Mode mode);
  Val LazyCall(CXCursor e, const std::string& op, const Val& l, Mode mode);
  Val LazyChoice(CXCursor e, const std::string& c, Mode mode);
  Val CallValue(CXCursor call, Mode mode);
  // a op b for an arithmetic operator of C on integers (+ - * / %).
  static std::string Arith(const std::string& op, const std::string& a, const std::string& b);

  // The expression with at most one shared access in its step, counting `extra` more (a write).
  Val Lowered(CXCursor e, int extra) {
    if (atomic_ != nullptr) return Expr(e, Mode::kEmit);
    reads_ = 0;
    Expr(e, Mode::kCount);
    return Expr(e, reads_ + extra > 1 ? Mode::kHoist : Mode::kEmit);
  }
  std::string Condition(CXCursor e) { return AsBool(Lowered(e, 0)); }

  // ---- statements ----
  void Body(std::size_t t);
  void Stmt(CXCursor s);
  void Declarations(CXCursor s);
  void LabelOrGoto(CXCursor s);
  // `return`: the result into the inlined call's variable, then to its exit (main's: the end).
  void Return(CXCursor s, const std::vector<CXCursor>& kids);
  void If(CXCursor s);
  bool NondetCall(CXCursor cond);
  std::string IfNot(CXCursor cond, int label);  // the step that goes to `label` unless `cond`
  void Loop(CXCursor s);
  void For(CXCursor s);
  void Switch(CXCursor s);
  void Assign(const Var& target, CXCursor rhs, CXCursor at);
  void Update(CXCursor lhs, const std::string& op, std::optional<CXCursor> rhs, CXCursor at);
  void ExprStmt(CXCursor s);
  void Call(CXCursor call, const Var* result);
  bool Builtin(const std::string& name, CXCursor call, const std::vector<CXCursor>& args);
  void Create(CXCursor call, const std::vector<CXCursor>& args);
  // The function a pthread_create call starts, checked: defined here, its argument 0.
  std::string ThreadFunction(CXCursor call);
  // When main only creates threads of one function without bound (`pthread_t t; while (1)
  // pthread_create(&t, 0, f, 0);`), that call.
  std::optional<CXCursor> Family(CXCursor main) const;
  // When main, not a Family, creates threads without bound in a loop of its own (`while (1)` or
  // `while (__VERIFIER_nondet_int())` around `pthread_create(&t, 0, f, 0)` alone) and does more
  // besides (starts a fixed thread, runs code before, calls f itself after): that loop. The program
  // is then one template for every count whose threads each take one role at their first step
  // (Roles).
  struct RolesLoopAt {
    CXCursor loop;
    CXCursor call;
    bool endless = false;
    // When all main does before an endless loop is start threads: those calls (else empty).
    std::vector<CXCursor> fixed;
  };
  std::optional<RolesLoopAt> RolesLoop(CXCursor main) const;
  // Main's statement that is the loop of RolesLoop: its threads may start (a flag), and main goes
  // on after it, or with an endless loop never ends.
  void FamilyLoop(CXCursor s);
  // The step that gives a thread its role (roles_): main's and each fixed thread's at most once,
  // the family's any number of times.
  std::string RoleChoice(const std::vector<std::vector<std::string>>& names);
  void Inline(CXCursor fn, CXCursor call, const std::vector<CXCursor>& args, const Var* result);
  void Section(CXCursor at, bool begin);  // __VERIFIER_atomic_begin / _end
  std::string Print();

  TranslationUnit unit_;
  std::string file_;
  std::map<std::string, CXCursor> functions_;
  std::map<std::string, Var> vars_;      // by clang's USR
  std::map<std::string, Var> pointers_;  // a pointer parameter's USR: the variable it names
  std::set<std::string> nulls_;          // pointer parameters given a null pointer
  std::set<std::string> used_{"__exited"};
  std::vector<std::string> globals_;
  std::vector<Var> locals_;
  std::vector<Thread> threads_;
  std::map<std::string, std::size_t> handles_;  // a pthread_t's USR: its thread's index
  std::size_t current_ = 0;
  std::vector<Frame> frames_;
  std::vector<std::pair<int, int>> loops_;  // break, continue (-1: none, in a switch)
  std::vector<std::vector<std::pair<CXCursor, int>>> cases_;  // each switch's labels
  std::vector<int> pending_;
  std::map<int, std::pair<std::size_t, std::size_t>> target_;  // label: thread, step
  std::vector<std::string>* atomic_ = nullptr;  // inside an atomic section: its instructions
  std::vector<std::string> section_;
  int next_label_ = 0;
  bool family_ = false;               // Family: one template, for every thread count from 1
  std::optional<RolesLoopAt> roles_;  // RolesLoop: one template of roles
  bool main_stays_ = false;           // main reached an endless RolesLoop: nothing after it runs
  int reads_ = 0;
  int loop_depth_ = 0;
};

}  // namespace druba::c::internal
