#include "refine/preconditions.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <utility>

namespace druba::predabs {
namespace {

using Kind = Expr::Kind;

// A variable: local (the actor's own) or shared.
using Key = std::pair<bool, std::uint32_t>;
// Each variable the path wrote so far, with its value over the statement's pre-state.
using Values = std::map<Key, std::shared_ptr<const Expr>>;

bool Mentions(const Expr& e, Kind kind) {
  if (e.kind == kind) return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [&](const ExprPtr& a) { return Mentions(*a, kind); });
}

// Whether a precondition of `e` can be written by substitution: no location, quantifier, count,
// `self` or array element picked at run time, and no other thread's copy of a local the path
// wrote.
bool Substitutable(const Expr& e, const Values& values) {
  switch (e.kind) {
    case Kind::kPc:
    case Kind::kForall:
    case Kind::kExists:
    case Kind::kCount:
    case Kind::kBound:
    case Kind::kSelf:
    case Kind::kSharedElement:
    case Kind::kLocalElement:
    case Kind::kPair:
      return false;
    case Kind::kLocal:
      if (!e.args.empty() && values.contains({true, e.var})) return false;
      break;
    default:
      break;
  }
  return std::all_of(e.args.begin(), e.args.end(),
                     [&](const ExprPtr& a) { return Substitutable(*a, values); });
}

ExprPtr Substitute(const Expr& e, const Values& values) {
  if (IsPlainVariable(e)) {
    const auto it = values.find({e.kind == Kind::kLocal, e.var});
    if (it != values.end()) return CloneExpr(*it->second);
  }
  ExprPtr out = CloneExpr(e);
  for (std::size_t i = 0; i < e.args.size(); ++i) out->args[i] = Substitute(*e.args[i], values);
  return out;
}

std::string WithoutOuterParentheses(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0) return text;  // the first parenthesis closes before the end
  }
  return text.substr(1, text.size() - 2);
}

class Paths {
 public:
  Paths(const Program& program, const std::vector<const Expr*>& predicates, bool own)
      : p_(program), predicates_(predicates), own_(own) {}

  struct Frame {
    const std::vector<Instr>* block;
    std::size_t at;
  };

  // Follows every path from `frames` on with `values`; the preconditions go to out().
  void Walk(std::vector<Frame> frames, Values values) {
    while (!frames.empty() && paths_ < kMaxPreconditionPaths) {
      Frame& top = frames.back();
      if (top.at == top.block->size()) {
        frames.pop_back();
        continue;
      }
      const Instr& op = (*top.block)[top.at++];
      switch (op.kind) {
        case Instr::Kind::kGoto:
          frames.clear();
          break;
        case Instr::Kind::kIf:
        case Instr::Kind::kChoice:
          for (const std::vector<Instr>& branch : op.blocks) {
            std::vector<Frame> next = frames;
            next.push_back({&branch, 0});
            Walk(std::move(next), values);
          }
          return;
        case Instr::Kind::kAssert:
          Add(*op.exprs[0], values, /*actor_view=*/true);
          break;
        case Instr::Kind::kAssume:
          break;
        case Instr::Kind::kAssign:
          if (!Assign(op, values)) return;  // a write this cannot follow: the path is dropped
          break;
        case Instr::Kind::kAssignEach:
          return;  // every thread's entry: not followed either
      }
    }
    if (paths_ >= kMaxPreconditionPaths) return;
    ++paths_;
    for (const Expr* p : predicates_) Add(*p, values, /*actor_view=*/false);
  }

  const std::vector<std::string>& out() const { return out_; }

 private:
  // The values after the simultaneous assignment `op`; false when it writes an array element
  // picked at run time, or (another thread acting) a local, or a shared variable from one.
  bool Assign(const Instr& op, Values& values) const {
    Values next = values;
    for (std::size_t k = 0; k < op.targets.size() && k < op.exprs.size(); ++k) {
      const Instr::Target& t = op.targets[k];
      if (t.index) return false;
      if (!own_ && (t.local || Mentions(*op.exprs[k], Kind::kLocal))) return false;
      next[{t.local, t.var}] = Substitute(*op.exprs[k], values);
    }
    values = std::move(next);
    return true;
  }

  // `e` (a predicate in thread 0's view, or an assertion in the actor's) after the path.
  void Add(const Expr& e, const Values& values, bool actor_view) {
    if (values.empty() || !Substitutable(e, values)) return;
    if (actor_view && !own_ && Mentions(e, Kind::kLocal)) return;
    const ExprPtr pre = Substitute(e, values);
    // A comparison of a term with itself says nothing.
    if (pre->kind == Kind::kBinary && pre->sort == Sort::kBool && pre->args.size() == 2 &&
        ExprToString(p_, *pre->args[0]) == ExprToString(p_, *pre->args[1])) {
      return;
    }
    const std::string text = WithoutOuterParentheses(ExprToString(p_, *pre));
    if (text != WithoutOuterParentheses(ExprToString(p_, e)) && seen_.insert(text).second) {
      out_.push_back(text);
    }
  }

  const Program& p_;
  const std::vector<const Expr*>& predicates_;
  bool own_;  // the actor is the viewing thread
  std::size_t paths_ = 0;
  std::set<std::string> seen_;
  std::vector<std::string> out_;
};

}  // namespace

std::vector<std::string> Preconditions(const Program& program,
                                       const std::vector<const Expr*>& predicates,
                                       std::uint32_t stmt, std::uint32_t actor) {
  if (stmt >= program.statements.size()) return {};
  Paths paths(program, predicates, actor == 0);
  paths.Walk({{&program.statements[stmt].body, 0}}, {});
  return paths.out();
}

}  // namespace druba::predabs
