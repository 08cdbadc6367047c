// The candidate predicates of refinement, read off the program's text (refine.h,
// CandidatePredicates): the atoms of its conditions, its Boolean variables, variables at their
// initial value, comparisons of two integer variables, index ranges of the arrays it indexes at run
// time, and (one thread template) the same atoms over the other threads.
#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "drb/liveness.h"
#include "interp/program.h"
#include "interp/residues.h"
#include "refine/counting_candidates.h"
#include "refine/refine.h"

namespace druba::predabs {
namespace {

using Kind = Expr::Kind;
using Op = Expr::Op;

// A predicate over the executing thread's state, rendered for any thread: `text(self_as)`
// writes it from the point of view of the thread named `self_as` ("" for self).
struct Atom {
  std::function<std::string(const std::string&)> text;
  std::vector<std::uint32_t> locals;  // the thread's own locals it reads
  bool liftable = false;              // no quantifier, no location, no `self`, no fixed index
  bool shared = false;                // it reads a shared variable
};

Atom ExprAtom(const Program& program, const Expr& e) {
  Atom atom;
  atom.liftable = true;
  WalkExpr(e, [&](const Expr& x) {
    if (x.kind == Kind::kLocal && x.args.empty()) atom.locals.push_back(x.var);
    if (x.kind == Kind::kLocal && !x.args.empty()) atom.liftable = false;
    if (x.kind == Kind::kShared || x.kind == Kind::kSharedElement) atom.shared = true;
    // A local array's element is the thread's own: no other thread's can be named.
    if (x.kind == Kind::kLocalElement ||
        (x.kind == Kind::kLocal && program.locals[x.var].name.find('[') != std::string::npos)) {
      atom.liftable = false;
    }
    if (x.kind == Kind::kPc || x.kind == Kind::kSelf || x.kind == Kind::kForall ||
        x.kind == Kind::kExists || x.kind == Kind::kCount || x.kind == Kind::kBound) {
      atom.liftable = false;
    }
  });
  atom.text = [&program, &e](const std::string& self_as) {
    if (e.kind != Kind::kBinary) return ExprToString(program, e, self_as);
    const std::string a = ExprToString(program, *e.args[0], self_as);
    const std::string b = ExprToString(program, *e.args[1], self_as);
    switch (e.op) {
      case Op::kEq:
      case Op::kNe:
        return a + " == " + b;
      case Op::kLt:
      case Op::kGe:
        return a + " < " + b;
      case Op::kGt:
      case Op::kLe:
        return b + " < " + a;
      default:
        return ExprToString(program, e, self_as);
    }
  };
  return atom;
}

// The Boolean atoms of a condition: below negations and connectives, not into quantifiers.
void ConditionAtoms(const Expr& e, std::vector<const Expr*>& out) {
  if (e.kind == Kind::kUnary && e.op == Op::kNot) return ConditionAtoms(*e.args[0], out);
  if (e.kind == Kind::kBinary && (e.op == Op::kAnd || e.op == Op::kOr || e.op == Op::kImplies)) {
    ConditionAtoms(*e.args[0], out);
    ConditionAtoms(*e.args[1], out);
    return;
  }
  if (e.kind == Kind::kBool || e.kind == Kind::kNumber) return;
  if (e.sort == Sort::kBool) out.push_back(&e);
}

void BodyAtoms(const std::vector<Instr>& body, std::vector<const Expr*>& out) {
  for (const Instr& op : body) {
    if (op.kind == Instr::Kind::kAssume || op.kind == Instr::Kind::kAssert ||
        op.kind == Instr::Kind::kIf) {
      ConditionAtoms(*op.exprs[0], out);
    }
    if (op.kind == Instr::Kind::kAssign) {
      for (const ExprPtr& rhs : op.exprs) {
        if (rhs->sort == Sort::kBool) ConditionAtoms(*rhs, out);
      }
    }
    for (const std::vector<Instr>& block : op.blocks) BodyAtoms(block, out);
  }
}

bool Reads(const Expr& e, std::uint32_t local) {
  bool found = false;
  WalkExpr(e, [&](const Expr& x) {
    found = found || (x.kind == Kind::kLocal && x.args.empty() && x.var == local);
  });
  return found;
}

// The labels of the statements that give `local` a value before reading it: there the value a
// thread holds is stale.
std::vector<std::string> DeadAt(const Program& program, std::uint32_t local) {
  std::vector<std::string> out;
  for (const Statement& st : program.statements) {
    if (st.body.empty() || st.body[0].kind != Instr::Kind::kAssign || st.label[0] == '@') continue;
    const Instr& op = st.body[0];
    const bool writes = std::any_of(op.targets.begin(), op.targets.end(),
                                    [&](const auto& t) { return t.local && t.var == local; });
    const bool reads = std::any_of(op.exprs.begin(), op.exprs.end(),
                                   [&](const ExprPtr& rhs) { return Reads(*rhs, local); });
    if (writes && !reads) out.push_back(st.label);
  }
  return out;
}

// The largest literal `x - y == c` and `x + y == c` are asked about.
constexpr int kMaxRelationLiteral = 4;

// A bound variable's name that no variable or label of the program uses.
std::string BinderName(const Program& program) {
  absl::flat_hash_set<std::string> used;
  for (const Variable& v : program.shared) used.insert(v.name);
  for (const Variable& v : program.locals) used.insert(v.name);
  for (const Statement& st : program.statements) used.insert(st.label);
  for (const char* name : {"i", "j", "k", "i1", "j1", "k1"}) {
    if (!used.contains(name)) return name;
  }
  return "i_refine";
}

// An integer variable the program names (a shared one, or the viewing thread's local).
struct IntVar {
  bool local = false;
  std::uint32_t var = 0;
  bool operator<(const IntVar& other) const {
    return std::tie(local, var) < std::tie(other.local, other.var);
  }
};

// The constants the program assigns to integer variables (`data := 40`), beside their initial
// values: a variable at such a value is a state the program passes through.
// `otherwise`: the variables also assigned something else (an element of a fixed-size array
// written at an index picked at run time counts for each element).
void AssignedConstants(const std::vector<Instr>& body, std::set<std::pair<IntVar, Int>>& out,
                       std::set<IntVar>& otherwise) {
  for (const Instr& op : body) {
    if (op.kind == Instr::Kind::kAssign) {
      for (std::size_t i = 0; i < op.targets.size() && i < op.exprs.size(); ++i) {
        const Instr::Target& t = op.targets[i];
        const Expr& rhs = *op.exprs[i];
        const std::uint32_t count = t.index && t.size > 0 ? t.size : t.index ? 0 : 1;
        for (std::uint32_t k = 0; k < count; ++k) {
          const IntVar v{t.local, t.var + k};
          if (rhs.kind == Kind::kNumber) {
            out.insert({v, rhs.value});
          } else {
            otherwise.insert(v);
          }
        }
      }
    }
    for (const std::vector<Instr>& block : op.blocks) AssignedConstants(block, out, otherwise);
  }
}

// The literal numbers of an expression.
void Literals(const Expr& e, std::set<Int>& out) {
  WalkExpr(e, [&](const Expr& x) {
    if (x.kind == Kind::kNumber && x.sort == Sort::kInt) out.insert(x.value);
  });
}

// The integer variables an expression reads whole (a shared one, the thread's own local).
void IntReads(const Program& program, const Expr& e, std::set<IntVar>& out) {
  WalkExpr(e, [&](const Expr& x) {
    if (!IsPlainVariable(x)) return;
    const IntVar v{x.kind == Kind::kLocal, x.var};
    const Variable& decl = v.local ? program.locals[v.var] : program.shared[v.var];
    if (decl.type != Type::kBool) out.insert(v);
  });
}

// Pairs of integer variables read (or written) together by one condition or assignment, and the
// program's literals: `x - y == c` and `x + y == c` are invariants the text does not spell (a
// ring buffer's `tail - head == 1`).
void RelatedPairs(const Program& program, const std::vector<Instr>& body,
                  std::set<std::pair<IntVar, IntVar>>& pairs, std::set<Int>& literals) {
  for (const Instr& op : body) {
    for (std::size_t i = 0; i < op.exprs.size(); ++i) {
      std::set<IntVar> vars;
      IntReads(program, *op.exprs[i], vars);
      Literals(*op.exprs[i], literals);
      if (op.kind == Instr::Kind::kAssign && i < op.targets.size() && !op.targets[i].index) {
        const IntVar t{op.targets[i].local, op.targets[i].var};
        const Variable& decl = t.local ? program.locals[t.var] : program.shared[t.var];
        if (decl.type != Type::kBool) vars.insert(t);
      }
      for (auto a = vars.begin(); a != vars.end(); ++a) {
        for (auto b = std::next(a); b != vars.end(); ++b) pairs.insert({*a, *b});
      }
    }
    for (const std::vector<Instr>& block : op.blocks) RelatedPairs(program, block, pairs, literals);
  }
}

// Atoms on single integer variables that the conditions do not spell: the variable at each
// constant the program assigns it, and its residue modulo each literal modulus it is taken by.
void ValueAtoms(const Program& program, std::vector<Atom>& atoms) {
  std::set<std::pair<IntVar, Int>> constants;
  std::set<IntVar> otherwise;
  for (const Statement& st : program.statements) AssignedConstants(st.body, constants, otherwise);
  const auto name = [&program](const IntVar& v) {
    const Variable& decl = v.local ? program.locals[v.var] : program.shared[v.var];
    return [&decl, v](const std::string& self_as) {
      return decl.name + (v.local && !self_as.empty() ? "[" + self_as + "]" : "");
    };
  };
  const auto locals = [](const IntVar& v) {
    return v.local ? std::vector<std::uint32_t>{v.var} : std::vector<std::uint32_t>{};
  };
  for (const auto& [v, c] : constants) {
    const Variable& decl = v.local ? program.locals[v.var] : program.shared[v.var];
    if (decl.type == Type::kBool || decl.init == c) continue;  // the initial value has its atom
    const auto n = name(v);
    const std::string value = c.str();
    atoms.push_back(
        {[n, value](const std::string& s) { return n(s) + " == " + value; }, locals(v), true});
  }
  for (const Residue& residue : ProgramResidues(program)) {
    const IntVar v{residue.local, residue.var};
    const Int& m = residue.modulus;
    const auto n = name(v);
    for (Int r = 0; r < m; ++r) {
      const std::string text = " % " + m.str() + " == " + r.str();
      atoms.push_back({[n, text](const std::string& s) { return n(s) + text; }, locals(v), true});
    }
  }
}

// The data atoms: condition atoms, Boolean variables, variables at their initial value, and
// comparisons of two integer variables.
std::vector<Atom> DataAtoms(const Program& program) {
  std::vector<Atom> atoms;
  std::vector<const Expr*> conditions;
  for (const Statement& st : program.statements) BodyAtoms(st.body, conditions);
  atoms.reserve(conditions.size());
  for (const Expr* e : conditions) atoms.push_back(ExprAtom(program, *e));
  struct Var {
    std::string name;
    bool local;
    std::uint32_t index;
    const Variable* decl;
  };
  std::vector<Var> ints;
  const auto add_vars = [&](const std::vector<Variable>& vars, bool local) {
    for (std::uint32_t i = 0; i < vars.size(); ++i) {
      const auto name = [&vars, i, local](const std::string& self_as) {
        return vars[i].name + (local && !self_as.empty() ? "[" + self_as + "]" : "");
      };
      const std::vector<std::uint32_t> locals =
          local ? std::vector<std::uint32_t>{i} : std::vector<std::uint32_t>{};
      if (vars[i].type == Type::kBool) {
        atoms.push_back({name, locals, true});
        continue;
      }
      ints.push_back({vars[i].name, local, i, &vars[i]});
      const std::string init = vars[i].init.str();
      atoms.push_back(
          {[name, init](const std::string& s) { return name(s) + " == " + init; }, locals, true});
    }
  };
  add_vars(program.shared, false);
  add_vars(program.locals, true);
  ValueAtoms(program, atoms);
  for (std::size_t a = 0; a < ints.size(); ++a) {
    for (std::size_t b = a + 1; b < ints.size(); ++b) {
      const Var x = ints[a];
      const Var y = ints[b];
      const auto name = [](const Var& v, const std::string& s) {
        return v.name + (v.local && !s.empty() ? "[" + s + "]" : "");
      };
      std::vector<std::uint32_t> locals;
      if (x.local) locals.push_back(x.index);
      if (y.local) locals.push_back(y.index);
      for (const char* op : {" == ", " < "}) {
        atoms.push_back(
            {[=](const std::string& s) { return name(x, s) + op + name(y, s); }, locals, true});
      }
      atoms.push_back(
          {[=](const std::string& s) { return name(y, s) + " < " + name(x, s); }, locals, true});
    }
  }
  return atoms;
}

// Whether shared Boolean `var` keeps its initial value false: no statement writes it.
bool NeverSet(const Program& program, const Expr& e) {
  if (e.kind != Kind::kShared || program.shared[e.var].type != Type::kBool ||
      program.shared[e.var].init != 0 || program.shared[e.var].any) {
    return false;
  }
  bool written = false;
  const std::function<void(const std::vector<Instr>&)> scan = [&](const std::vector<Instr>& b) {
    for (const Instr& op : b) {
      for (const Instr::Target& t : op.targets) written |= !t.local && !t.pair && t.var == e.var;
      for (const std::vector<Instr>& block : op.blocks) scan(block);
    }
  };
  for (const Statement& st : program.statements) scan(st.body);
  return !written;
}

// What each assertion of `body` claims of thread `j`, with the branch it is made in:
// `if c then { assert e }` claims `!(c) || e`. An assertion of a flag that is never set (the C
// kind's `assert __exited` where main never returns) claims only that its branch is not taken.
void AssertionsOf(const Program& program, const std::vector<Instr>& body, const std::string& j,
                  const std::string& branch, std::vector<std::string>& out) {
  for (const Instr& op : body) {
    if (op.kind == Instr::Kind::kAssert && ExprAtom(program, *op.exprs[0]).liftable) {
      const bool never = NeverSet(program, *op.exprs[0]);
      if (never && branch.empty()) continue;
      const std::string claim = never ? "" : ExprToString(program, *op.exprs[0], j);
      out.push_back(branch.empty() ? claim
                                   : branch.substr(0, branch.size() - (never ? 4 : 0)) + claim);
      continue;
    }
    if (op.kind != Instr::Kind::kIf || op.exprs.empty() || op.blocks.size() != 2) continue;
    if (!ExprAtom(program, *op.exprs[0]).liftable) continue;
    const std::string c = ExprToString(program, *op.exprs[0], j);
    std::string taken = branch;
    taken.append("!(").append(c).append(") || ");
    std::string other = branch;
    other.append("(").append(c).append(") || ");
    AssertionsOf(program, op.blocks[0], j, taken, out);
    AssertionsOf(program, op.blocks[1], j, other, out);
  }
}

// Each atom of another thread relating its locals to shared variables, at each location where
// those locals are live (read before they are written again): what a thread that holds a value
// there knows of the shared state, the form an Owicki-Gries proof gives each location (`forall
// i != self: pc[i] != check || t[i] < v`: a thread about to check that the counter passed the
// value it read). Where its locals are dead an atom says nothing.
void LiveForms(const Program& program, const std::vector<Atom>& atoms, const std::string& j,
               std::vector<std::string>& out) {
  const std::vector<std::vector<bool>> live = drb::LiveLocals(program);
  for (const Atom& atom : atoms) {
    if (!atom.liftable || atom.locals.empty() || !atom.shared) continue;
    for (std::uint32_t pc = 0; pc < program.statements.size(); ++pc) {
      const Statement& st = program.statements[pc];
      if (st.label[0] == '@' || !std::all_of(atom.locals.begin(), atom.locals.end(),
                                             [&](std::uint32_t l) { return live[pc][l]; })) {
        continue;
      }
      out.push_back(
          fmt::format("forall {0} != self: pc[{0}] != {1} || {2}", j, st.label, atom.text(j)));
    }
  }
}

// The forms over the other threads (one thread template only).
void OtherThreadForms(const Program& program, const std::vector<Atom>& atoms,
                      std::vector<std::string>& out) {
  const std::string j = BinderName(program);
  std::vector<std::string> places;
  for (const Statement& st : program.statements) {
    if (st.label[0] != '@') places.push_back(st.label);
  }
  places.emplace_back("end");
  for (const std::string& label : places) {
    out.push_back(fmt::format("forall {0} != self: pc[{0}] != {1}", j, label));
  }
  const auto guard = [&](const std::vector<std::uint32_t>& locals) {
    std::set<std::string> labels;
    for (const std::uint32_t l : locals) {
      for (const std::string& label : DeadAt(program, l)) labels.insert(label);
    }
    std::string text;
    for (const std::string& label : labels) text += fmt::format("pc[{}] == {} || ", j, label);
    return text;
  };
  for (const Atom& atom : atoms) {
    if (!atom.liftable || atom.locals.empty()) continue;
    const std::string lifted = atom.text(j);
    const std::string g = guard(atom.locals);
    out.push_back(fmt::format("forall {}: {}", j, lifted));
    if (!g.empty()) out.push_back(fmt::format("forall {} != self: {}{}", j, g, lifted));
    out.push_back(fmt::format("forall {} != self: {}!({})", j, g, lifted));
  }
  // Every other thread's assertion holds where it is made (under the branches it is made in).
  for (const Statement& st : program.statements) {
    if (st.label[0] == '@') continue;
    std::vector<std::string> holds;
    AssertionsOf(program, st.body, j, "", holds);
    for (const std::string& h : holds) {
      out.push_back(fmt::format("forall {0} != self: pc[{0}] != {1} || {2}", j, st.label, h));
    }
  }
  LiveForms(program, atoms, j, out);
  for (std::uint32_t l = 0; l < program.locals.size(); ++l) {
    if (program.locals[l].type == Type::kBool) continue;
    const std::string& y = program.locals[l].name;
    out.push_back(fmt::format("forall {0} != self: {1}{2} != {2}[{0}]", j, guard({l}), y));
  }
}

}  // namespace

namespace {

// "the index is inside the array" for every element of a fixed-size array the code picks at run
// time: the abstraction must know it where the program never fails on it.
void IndexRanges(const Program& program, const std::vector<Instr>& body,
                 std::vector<std::string>& out) {
  const auto range = [&](const Expr& index, std::uint32_t size) {
    const std::string e = ExprToString(program, index);
    out.push_back("0 <= " + e + " && " + e + " < " + std::to_string(size));
  };
  const auto visit = [&](const Expr& x) {
    if (x.kind == Kind::kSharedElement || x.kind == Kind::kLocalElement) {
      range(*x.args[0], static_cast<std::uint32_t>(x.value));
    }
  };
  for (const Instr& op : body) {
    for (const ExprPtr& e : op.exprs) WalkExpr(*e, visit);
    for (const Instr::Target& t : op.targets) {
      if (t.index && t.size > 0) range(*t.index, t.size);
    }
    for (const std::vector<Instr>& block : op.blocks) IndexRanges(program, block, out);
  }
}

// The parts of a quantified condition (`forall i != self: A && B` gives `forall i != self: A` and
// `forall i != self: B`; `exists` splits at `||`): a mutual exclusion property states several
// claims at once, and the abstraction may need them apart.
void QuantifiedParts(const Program& program, std::vector<std::string>& out) {
  std::vector<const Expr*> conditions;
  for (const Statement& st : program.statements) BodyAtoms(st.body, conditions);
  for (const Expr* e : conditions) {
    if (e->kind != Kind::kForall && e->kind != Kind::kExists) continue;
    const Op split = e->kind == Kind::kForall ? Op::kAnd : Op::kOr;
    std::vector<const Expr*> parts;
    const std::function<void(const Expr&)> collect = [&](const Expr& x) {
      if (x.kind == Kind::kBinary && x.op == split) {
        collect(*x.args[0]);
        collect(*x.args[1]);
      } else {
        parts.push_back(&x);
      }
    };
    collect(*e->args[0]);
    if (parts.size() < 2) continue;
    const std::string binder =
        fmt::format("{} i{}{}: ", e->kind == Kind::kForall ? "forall" : "exists", e->var,
                    e->exclude_self ? " != self" : "");
    for (const Expr* part : parts) out.push_back(binder + ExprToString(program, *part));
  }
}

// From an `unsafe` property that counts threads (`count(i: pc[i] == cs) >= 2`): that no other
// thread is counted, and the property itself. A mutual exclusion written so needs the first: the
// viewing thread knows it is alone where it stands.
void UnsafeParts(const Program& program, std::vector<std::string>& out) {
  for (const Predicate& p : program.unsafe) {
    out.push_back("!(" + ExprToString(program, *p.expr) + ")");
    WalkExpr(*p.expr, [&](const Expr& e) {
      if (e.kind != Kind::kCount) return;
      out.push_back(
          fmt::format("forall i{} != self: !({})", e.var, ExprToString(program, *e.args[0])));
    });
  }
}

// Last among the candidates (after the forms over other threads, which they must not crowd out of
// the pool): the range of each variable only ever set to constants (`lo <= v && v <= hi`), and
// differences and sums of related pairs equal to small literals of the program.
void RelationAtoms(const Program& program, std::vector<std::string>& out) {
  std::set<std::pair<IntVar, Int>> constants;
  std::set<IntVar> otherwise;
  std::set<std::pair<IntVar, IntVar>> pairs;
  std::set<Int> literals{Int(1)};
  for (const Statement& st : program.statements) {
    AssignedConstants(st.body, constants, otherwise);
    RelatedPairs(program, st.body, pairs, literals);
  }
  const auto name = [&program](const IntVar& v) {
    return (v.local ? program.locals[v.var] : program.shared[v.var]).name;
  };
  std::map<IntVar, std::pair<Int, Int>> ranges;
  for (const auto& [v, c] : constants) {
    const Variable& decl = v.local ? program.locals[v.var] : program.shared[v.var];
    if (decl.type == Type::kBool || otherwise.contains(v)) continue;
    auto [it, inserted] = ranges.try_emplace(v, decl.init, decl.init);
    it->second = {std::min(it->second.first, c), std::max(it->second.second, c)};
  }
  for (const auto& [v, range] : ranges) {
    if (range.first == range.second) continue;
    out.push_back(
        fmt::format("{0} <= {1} && {1} <= {2}", range.first.str(), name(v), range.second.str()));
  }
  for (const auto& [x, y] : pairs) {
    for (const Int& c : literals) {
      if (c < 1) continue;
      if (c > kMaxRelationLiteral) continue;
      out.push_back(fmt::format("{} - {} == {}", name(x), name(y), c.str()));
      out.push_back(fmt::format("{} - {} == {}", name(y), name(x), c.str()));
      out.push_back(fmt::format("{} + {} == {}", name(x), name(y), c.str()));
    }
  }
}

}  // namespace

std::vector<std::string> CandidatePredicates(const Program& program) {
  const std::vector<Atom> atoms = DataAtoms(program);
  std::vector<std::string> out;
  out.reserve(atoms.size());
  for (const Atom& atom : atoms) out.push_back(atom.text(""));
  for (const Statement& st : program.statements) IndexRanges(program, st.body, out);
  QuantifiedParts(program, out);
  UnsafeParts(program, out);
  if (program.templates.size() == 1) {
    OtherThreadForms(program, atoms, out);
    CountingAtoms(program, BinderName(program), out);
  }
  RelationAtoms(program, out);
  std::vector<std::string> unique;
  absl::flat_hash_set<std::string> seen;
  for (std::string& text : out) {
    if (seen.insert(text).second) unique.push_back(std::move(text));
  }
  return unique;
}

}  // namespace druba::predabs
