#include "interp/residues.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include <fmt/format.h>

namespace druba::predabs {
namespace {

using Kind = Expr::Kind;
using Op = Expr::Op;

Int Euclid(const Int& a, const Int& m) {
  Int r = a % m;
  return r < 0 ? r + m : r;
}

ExprPtr Number(const Int& value, const SourceLocation& where) {
  auto e = std::make_unique<Expr>();
  e->kind = Kind::kNumber;
  e->value = value;
  e->where = where;
  return e;
}

ExprPtr Read(bool local, std::uint32_t var, const SourceLocation& where) {
  auto e = std::make_unique<Expr>();
  e->kind = local ? Kind::kLocal : Kind::kShared;
  e->var = var;
  e->where = where;
  return e;
}

ExprPtr Binary(Op op, ExprPtr a, ExprPtr b, Sort sort) {
  auto e = std::make_unique<Expr>();
  e->kind = Kind::kBinary;
  e->op = op;
  e->sort = sort;
  e->where = a->where;
  e->height = 1 + std::max(a->height, b->height);
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

// A variable of the program: local (the executing thread's own) or shared.
using VarRef = std::pair<bool, std::uint32_t>;

// The variable `e` is, or differs from by a literal (`x`, `x + 1`, `x - 2`), if any.
std::optional<VarRef> Shifted(const Expr& e) {
  const auto plain = [](const Expr& x) {
    return (x.kind == Kind::kShared || x.kind == Kind::kLocal) && x.args.empty();
  };
  if (plain(e)) return VarRef{e.kind == Kind::kLocal, e.var};
  if (e.kind == Kind::kBinary && (e.op == Op::kAdd || e.op == Op::kSub) && plain(*e.args[0]) &&
      e.args[1]->kind == Kind::kNumber) {
    return VarRef{e.args[0]->kind == Kind::kLocal, e.args[0]->var};
  }
  return std::nullopt;
}

class Ghoster {
 public:
  explicit Ghoster(const Program& program) : p_(program) {}

  GhostedProgram Run() {
    GhostedProgram out;
    Program& q = out.program;
    q.file = p_.file;
    q.shared = p_.shared;
    q.locals = p_.locals;
    q.pairs = p_.pairs;
    q.templates = p_.templates;
    q.num_slots = p_.num_slots;
    q.error_pc = p_.error_pc;
    q.symmetric = p_.symmetric;
    q.asymmetric_at = p_.asymmetric_at;
    q.asymmetric_what = p_.asymmetric_what;
    q.check_deadlock = p_.check_deadlock;
    const std::set<VarRef> unfollowable = Unfollowable();
    for (const Residue& r : ProgramResidues(p_)) {
      const Variable& var = r.local ? p_.locals[r.var] : p_.shared[r.var];
      if (var.name.find('[') != std::string::npos || unfollowable.contains({r.local, r.var})) {
        continue;
      }
      std::vector<Variable>& vars = r.local ? q.locals : q.shared;
      const auto ghost = static_cast<std::uint32_t>(vars.size());
      vars.push_back({fmt::format("{}%{}", var.name, r.modulus.str()), drb::Type::kNat,
                      Euclid(var.init, r.modulus), var.where, false, Int(0), std::nullopt});
      ghosts_[{r.local, r.var}].emplace_back(r.modulus, ghost);
      out.ghosts.push_back({r.local, r.var, ghost, r.modulus});
    }
    for (const Statement& st : p_.statements) {
      Statement copy{st.label, st.thread_template, st.next, st.text, st.where, {}};
      copy.body = Block(st.body);
      q.statements.push_back(std::move(copy));
    }
    return out;
  }

 private:
  // Locals some statement writes in another thread's entry (`l[j] := ...`).
  std::set<VarRef> Unfollowable() const {
    std::set<VarRef> out;
    const std::function<void(const std::vector<Instr>&)> walk = [&](const auto& block) {
      for (const Instr& op : block) {
        for (const Instr::Target& t : op.targets) {
          if (t.local && t.index && t.size == 0) out.insert({true, t.var});
        }
        for (const std::vector<Instr>& inner : op.blocks) walk(inner);
      }
    };
    for (const Statement& st : p_.statements) walk(st.body);
    return out;
  }

  std::optional<std::uint32_t> GhostOf(const VarRef& v, const Int& m) const {
    const auto it = ghosts_.find(v);
    if (it == ghosts_.end()) return std::nullopt;
    for (const auto& [modulus, ghost] : it->second) {
      if (modulus == m) return ghost;
    }
    return std::nullopt;
  }

  // `e` with each `x % m` that has a ghost read from the ghost.
  ExprPtr Rewrite(const Expr& e) const {
    if (e.kind == Kind::kBinary && e.op == Op::kMod && IsPlainVariable(*e.args[0]) &&
        e.args[1]->kind == Kind::kNumber) {
      const Expr& x = *e.args[0];
      if (const auto g = GhostOf({x.kind == Kind::kLocal, x.var}, e.args[1]->value)) {
        return Read(x.kind == Kind::kLocal, *g, e.where);
      }
    }
    ExprPtr out = CloneExpr(e);
    for (std::size_t i = 0; i < e.args.size(); ++i) out->args[i] = Rewrite(*e.args[i]);
    return out;
  }

  static Instr Assign(bool local, std::uint32_t var, ExprPtr value) {
    Instr op;
    op.kind = Instr::Kind::kAssign;
    op.where = value->where;
    op.targets.push_back({local, var, nullptr, 0, false, nullptr});
    op.exprs.push_back(std::move(value));
    return op;
  }

  // Ghost `g` of target `x` after `x := rhs`, with no `mod` where `rhs` is a literal or a
  // variable plus a literal whose residue has a ghost too; `reads` gets the ghost it reads.
  std::optional<Instr> Exact(const VarRef& x, std::uint32_t g, const Int& m, const Expr& rhs,
                             std::optional<VarRef>& reads) const {
    if (rhs.kind == Kind::kNumber)
      return Assign(x.first, g, Number(Euclid(rhs.value, m), rhs.where));
    const bool shifted = rhs.kind == Kind::kBinary && (rhs.op == Op::kAdd || rhs.op == Op::kSub) &&
                         IsPlainVariable(*rhs.args[0]) && rhs.args[1]->kind == Kind::kNumber;
    const Expr& y = shifted ? *rhs.args[0] : rhs;
    if (!IsPlainVariable(y)) return std::nullopt;
    const bool local = y.kind == Kind::kLocal;
    const auto gy = GhostOf({local, y.var}, m);
    if (!gy) return std::nullopt;
    reads = VarRef{local, *gy};
    const Int c =
        shifted ? Euclid(rhs.op == Op::kAdd ? rhs.args[1]->value : -rhs.args[1]->value, m) : Int(0);
    if (c == 0) return Assign(x.first, g, Read(local, *gy, rhs.where));
    const auto sum = [&] {
      return Binary(Op::kAdd, Read(local, *gy, rhs.where), Number(c, rhs.where), Sort::kInt);
    };
    Instr wrap;
    wrap.kind = Instr::Kind::kIf;
    wrap.where = rhs.where;
    wrap.exprs.push_back(Binary(Op::kGe, sum(), Number(m, rhs.where), Sort::kBool));
    wrap.blocks.resize(2);
    wrap.blocks[0].push_back(
        Assign(x.first, g, Binary(Op::kSub, sum(), Number(m, rhs.where), Sort::kInt)));
    wrap.blocks[1].push_back(Assign(x.first, g, sum()));
    return wrap;
  }

  // An assignment and, after it, the updates of its targets' ghosts: first the exact ones (the
  // assignment writes no ghost, so they read the ghosts as they were, as its right-hand sides
  // read the variables), then the others as `g := x % m`. When an exact update reads a ghost
  // another writes (`x, y := y + 1, x`), every update is `g := x % m`. After, not before: an
  // assignment that fails (a nat going negative) ends the statement there.
  void Assignment(const Instr& op, Instr rewritten, std::vector<Instr>& out) const {
    std::vector<Instr> exact;
    std::vector<std::pair<Instr, bool>> others;  // and whether an exact one stands for it
    std::set<VarRef> written;
    std::set<VarRef> read;
    for (std::size_t k = 0; k < op.targets.size() && k < op.exprs.size(); ++k) {
      const Instr::Target& t = op.targets[k];
      if (t.index) continue;
      const auto it = ghosts_.find({t.local, t.var});
      if (it == ghosts_.end()) continue;
      for (const auto& [m, g] : it->second) {
        std::optional<VarRef> reads;
        std::optional<Instr> update = Exact({t.local, t.var}, g, m, *op.exprs[k], reads);
        if (update) {
          exact.push_back(std::move(*update));
          written.insert({t.local, g});
          if (reads && *reads != VarRef{t.local, g}) read.insert(*reads);
        }
        others.emplace_back(Assign(t.local, g,
                                   Binary(Op::kMod, Read(t.local, t.var, op.where),
                                          Number(m, op.where), Sort::kInt)),
                            update.has_value());
      }
    }
    out.push_back(std::move(rewritten));
    const bool clash = std::any_of(written.begin(), written.end(),
                                   [&](const VarRef& v) { return read.contains(v); });
    if (!clash) {
      for (Instr& update : exact) out.push_back(std::move(update));
    }
    for (auto& [update, stood_for] : others) {
      if (!stood_for || clash) out.push_back(std::move(update));
    }
  }

  std::vector<Instr> Block(const std::vector<Instr>& block) const {
    std::vector<Instr> out;
    for (const Instr& op : block) {
      Instr copy;
      copy.kind = op.kind;
      copy.label = op.label;
      copy.where = op.where;
      copy.unsafe = op.unsafe;
      copy.slot = op.slot;  // `forall j: a[j] := ...` writes no ghost: a stale one loses proofs
      copy.exclude_self = op.exclude_self;
      for (const Instr::Target& t : op.targets) {
        copy.targets.push_back({t.local, t.var, t.index ? Rewrite(*t.index) : nullptr, t.size,
                                t.pair, t.column ? Rewrite(*t.column) : nullptr});
      }
      for (const ExprPtr& e : op.exprs) copy.exprs.push_back(Rewrite(*e));
      for (const std::vector<Instr>& inner : op.blocks) copy.blocks.push_back(Block(inner));
      if (op.kind == Instr::Kind::kAssign) {
        Assignment(op, std::move(copy), out);
      } else {
        out.push_back(std::move(copy));
      }
    }
    return out;
  }

  const Program& p_;
  std::map<VarRef, std::vector<std::pair<Int, std::uint32_t>>> ghosts_;  // modulus, ghost
};

}  // namespace

std::vector<Residue> ProgramResidues(const Program& program) {
  std::set<Residue> found;
  // Variables one is assigned from another (`v := x`, `x := x + 1`): a residue of one is a
  // residue of the other (a seqlock takes the version's parity of a copy).
  std::vector<std::pair<VarRef, VarRef>> copies;
  const std::function<void(const std::vector<Instr>&)> body = [&](const std::vector<Instr>& block) {
    const auto visit = [&](const Expr& x) {
      if (x.kind != Kind::kBinary || x.op != Op::kMod || x.args[1]->kind != Kind::kNumber) return;
      const std::optional<VarRef> v = Shifted(*x.args[0]);
      const Int& m = x.args[1]->value;
      if (v && x.args[0]->kind != Kind::kBinary && m >= 2 && m <= kMaxResidueModulus) {
        found.insert({v->first, v->second, m});
      }
    };
    for (const Instr& op : block) {
      for (const ExprPtr& e : op.exprs) WalkExpr(*e, visit);
      for (std::size_t t = 0; t < op.targets.size(); ++t) {
        const Instr::Target& target = op.targets[t];
        if (target.index) WalkExpr(*target.index, visit);
        if (op.kind != Instr::Kind::kAssign || target.index || t >= op.exprs.size()) continue;
        if (const std::optional<VarRef> from = Shifted(*op.exprs[t])) {
          copies.emplace_back(VarRef{target.local, target.var}, *from);
        }
      }
      for (const std::vector<Instr>& inner : op.blocks) body(inner);
    }
  };
  for (const Statement& st : program.statements) body(st.body);
  const auto type = [&program](const VarRef& v) {
    return (v.first ? program.locals[v.second] : program.shared[v.second]).type;
  };
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [a, b] : copies) {
      if (type(a) == Type::kBool || type(b) == Type::kBool) continue;
      for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
        for (const Residue& r : std::set<Residue>(found)) {
          if (r.local == x.first && r.var == x.second) {
            grew = found.insert({y.first, y.second, r.modulus}).second || grew;
          }
        }
      }
    }
  }
  return {found.begin(), found.end()};
}

GhostedProgram WithResidueGhosts(const Program& program) {
  return Ghoster(program).Run();
}

}  // namespace druba::predabs
