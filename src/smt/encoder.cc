#include "smt/encoder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "drb/counting.h"

namespace druba::predabs {
Encoder::Encoder(const Program& program, Solver& solver) : program_(program), s_(solver) {
  for (const Statement& st : program.statements) {
    std::vector<const Expr*> here;
    drb::ValueCounts(st.body, here);
    Track(here);
  }
}

void Encoder::TrackCounts(const Expr& e) {
  std::vector<const Expr*> here;
  drb::ValueCounts(e, here);
  Track(here);
}

void Encoder::Track(const std::vector<const Expr*>& here) {
  std::vector<std::size_t> at;
  for (const Expr* e : here) {
    auto it = std::find_if(counts_.begin(), counts_.end(),
                           [&](const Expr* c) { return drb::SameCount(*c, *e); });
    if (it == counts_.end()) it = counts_.insert(counts_.end(), e);
    at.push_back(static_cast<std::size_t>(it - counts_.begin()));
  }
  std::sort(at.begin(), at.end());
  for (std::size_t a = 0; a < at.size(); ++a) {
    for (std::size_t b = a + 1; b < at.size(); ++b) {
      const std::pair<std::size_t, std::size_t> pair{at[a], at[b]};
      if (std::find(count_pairs_.begin(), count_pairs_.end(), pair) == count_pairs_.end()) {
        count_pairs_.push_back(pair);
      }
    }
  }
}

void Encoder::TrackRanks(const Expr& e) {
  drb::RankCounts(e, rank_counts_);
}

ThreadCount Encoder::Symbolic(std::uint32_t min, std::vector<Term>& facts) {
  ThreadCount c;
  c.n = s_.FreshInt("n");
  facts.push_back(s_.Le(s_.Num(min), c.n));
  c.zero = s_.FreshThread("t0");
  c.alive = s_.FreshThreadArray("alive", true);
  std::vector<Term> distinct{c.zero};
  facts.push_back(s_.Select(c.alive, c.zero));
  for (std::uint32_t i = 1; i < min; ++i) {
    const Term t = s_.FreshThread("t");
    facts.push_back(s_.Select(c.alive, t));
    for (const Term u : distinct) facts.push_back(s_.Not(s_.Eq(t, u)));
    distinct.push_back(t);
  }
  return c;
}

ThreadCount Encoder::Ordered(std::uint32_t min, std::vector<Term>& facts) {
  ThreadCount c;
  c.ordered = true;
  c.n = s_.FreshInt("n");
  facts.push_back(s_.Le(s_.Num(min), c.n));
  c.zero = s_.Num(0);
  return c;
}

SymState Encoder::FreshState(const std::string& tag, const ThreadCount& count) {
  const auto array = [&](const std::string& name) {
    return count.fixed || count.ordered ? s_.FreshIntArray(name) : s_.FreshThreadArray(name, false);
  };
  SymState out;
  for (const Variable& v : program_.shared) out.shared.push_back(s_.FreshInt(tag + "." + v.name));
  for (const Variable& v : program_.locals) out.locals.push_back(array(tag + "." + v.name));
  out.pc = array(tag + ".pc");
  if (!program_.pairs.empty() && !count.fixed && !count.ordered) {
    throw std::logic_error("Encoder: a per-pair array with threads of an uninterpreted sort");
  }
  for (const Variable& v : program_.pairs) {
    out.pairs.push_back(s_.FreshIntArray2(tag + "." + v.name));
  }
  if (!count.fixed) {
    for (std::size_t k = 0; k < counts_.size(); ++k) {
      out.counts.push_back(s_.FreshInt(tag + ".count" + std::to_string(k)));
    }
  }
  if (count.ordered) {
    for (std::size_t k = 0; k < rank_counts_.size(); ++k) {
      out.ranks.push_back(s_.FreshIntArray(tag + ".rank" + std::to_string(k)));
    }
  }
  return out;
}

std::vector<Term> Encoder::QuantifierWitnesses(std::uint32_t stmt, Term actor, const SymState& pre,
                                               const ThreadCount& count, std::vector<Term>& facts) {
  std::vector<Term> out;
  const std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e.kind != Expr::Kind::kForall && e.kind != Expr::Kind::kExists) {
      for (const ExprPtr& a : e.args) visit(*a);
      return;
    }
    const Term u = FreshThread(count, "u");
    std::vector<Term> at{InRange(u, count)};
    if (e.exclude_self) at.push_back(s_.Not(s_.Eq(u, actor)));
    const Term whole = Eval(e, pre, count, actor);
    const Term one = Instance(e, pre, count, actor, u);
    // forall: it holds, or fails at u; exists: it does not hold, or holds at u.
    at.push_back(e.kind == Expr::Kind::kForall ? s_.Not(one) : one);
    facts.push_back(s_.Or({e.kind == Expr::Kind::kForall ? whole : s_.Not(whole), s_.And(at)}));
    out.push_back(u);
  };
  const std::function<void(const std::vector<Instr>&)> block = [&](const std::vector<Instr>& b) {
    for (const Instr& op : b) {
      for (const ExprPtr& e : op.exprs) visit(*e);
      for (const std::vector<Instr>& inner : op.blocks) block(inner);
    }
  };
  block(program_.statements[stmt].body);
  return out;
}

Term Encoder::InRange(Term k, const ThreadCount& count) {
  if (!count.fixed && !count.ordered) return s_.Select(count.alive, k);
  return s_.And({s_.Le(s_.Num(0), k), s_.Lt(k, count.n)});
}

std::uint32_t Encoder::TemplateOfThread(std::uint32_t thread) const {
  if (program_.templates.size() == 1) return 0;
  std::uint32_t seen = 0;
  for (std::uint32_t t = 0; t < program_.templates.size(); ++t) {
    seen += program_.templates[t].count;
    if (thread < seen) return t;
  }
  throw std::logic_error("Encoder: thread index beyond the templates");
}

Term Encoder::PcRange(Term pc, std::uint32_t template_index) {
  const ThreadTemplate& t = program_.templates[template_index];
  return s_.Or({s_.And({s_.Le(s_.Num(t.first), pc), s_.Lt(pc, s_.Num(t.first + t.size))}),
                s_.Eq(pc, s_.Num(t.end_pc))});
}

namespace {
Term TypeOk(Solver& s, const Variable& var, Term value) {
  if (var.type == Type::kBool) return s.And({s.Le(s.Num(0), value), s.Le(value, s.Num(1))});
  return Declared(s, var, value);
}
}  // namespace

template <class PerColumn>
Term Encoder::EveryColumn(const ThreadCount& count, PerColumn&& per_column) {
  if (!count.fixed) {
    const Term j = FreshThread(count, "j");
    return s_.Quantify(true, j, s_.Implies(InRange(j, count), per_column(j)));
  }
  std::vector<Term> parts;
  for (std::uint32_t j = 0; j < *count.fixed; ++j) parts.push_back(per_column(s_.Num(j)));
  return s_.And(parts);
}

template <class PerThread>
Term Encoder::EveryThread(const ThreadCount& count, PerThread&& per_thread) {
  if (!count.fixed) {
    const Term i = FreshThread(count, "i");
    return s_.Quantify(true, i, s_.Implies(InRange(i, count), per_thread(i, 0)));
  }
  std::vector<Term> parts;
  for (std::uint32_t i = 0; i < *count.fixed; ++i) {
    parts.push_back(per_thread(s_.Num(i), TemplateOfThread(i)));
  }
  return s_.And(parts);
}

Term Encoder::WellFormed(const SymState& state, const ThreadCount& count) {
  std::vector<Term> parts;
  for (std::size_t v = 0; v < program_.shared.size(); ++v) {
    parts.push_back(TypeOk(s_, program_.shared[v], state.shared[v]));
  }
  const auto per_thread = [&](Term i, std::uint32_t template_index) {
    std::vector<Term> conj;
    for (std::size_t v = 0; v < program_.locals.size(); ++v) {
      conj.push_back(TypeOk(s_, program_.locals[v], s_.Select(state.locals[v], i)));
    }
    for (std::size_t v = 0; v < program_.pairs.size(); ++v) {
      if (program_.pairs[v].type == Type::kInt && !program_.pairs[v].upper &&
          !program_.pairs[v].lower)
        continue;
      conj.push_back(EveryColumn(count, [&](Term j) {
        return TypeOk(s_, program_.pairs[v], s_.Select2(state.pairs[v], i, j));
      }));
    }
    conj.push_back(PcRange(s_.Select(state.pc, i), template_index));
    return s_.And(conj);
  };
  parts.push_back(EveryThread(count, per_thread));
  CountFacts(state, count, parts);
  return s_.And(parts);
}

Term Encoder::Initial(const SymState& state, const ThreadCount& count) {
  std::vector<Term> parts;
  for (std::size_t v = 0; v < program_.shared.size(); ++v) {
    parts.push_back(s_.Eq(state.shared[v], s_.IntValue(program_.shared[v].init)));
  }
  const auto per_thread = [&](Term i, std::uint32_t template_index) {
    std::vector<Term> conj;
    for (std::size_t v = 0; v < program_.locals.size(); ++v) {
      conj.push_back(s_.Eq(s_.Select(state.locals[v], i), s_.IntValue(program_.locals[v].init)));
    }
    for (std::size_t v = 0; v < program_.pairs.size(); ++v) {
      conj.push_back(EveryColumn(count, [&](Term j) {
        return s_.Eq(s_.Select2(state.pairs[v], i, j), s_.IntValue(program_.pairs[v].init));
      }));
    }
    conj.push_back(s_.Eq(s_.Select(state.pc, i), s_.Num(program_.templates[template_index].first)));
    return s_.And(conj);
  };
  parts.push_back(EveryThread(count, per_thread));
  InitialCounts(state, count, parts);
  return s_.And(parts);
}

Term Encoder::SameState(const SymState& a, const SymState& b) {
  std::vector<Term> parts;
  for (std::size_t v = 0; v < a.shared.size(); ++v)
    parts.push_back(s_.Eq(a.shared[v], b.shared[v]));
  for (std::size_t v = 0; v < a.locals.size(); ++v)
    parts.push_back(s_.Eq(a.locals[v], b.locals[v]));
  parts.push_back(s_.Eq(a.pc, b.pc));
  for (std::size_t v = 0; v < a.pairs.size(); ++v) parts.push_back(s_.Eq(a.pairs[v], b.pairs[v]));
  for (std::size_t k = 0; k < a.counts.size(); ++k)
    parts.push_back(s_.Eq(a.counts[k], b.counts[k]));
  for (std::size_t k = 0; k < a.ranks.size(); ++k) parts.push_back(s_.Eq(a.ranks[k], b.ranks[k]));
  return s_.And(parts);
}

Term Encoder::Eval(const Expr& expr, const SymState& state, const ThreadCount& count, Term self) {
  std::vector<Term> slots(program_.num_slots, 0);
  std::vector<Term> errors;
  const Term value = EvalIn(expr, state, count, self, slots, &errors);
  if (errors.empty()) return value;
  return s_.And({value, s_.Not(s_.Or(errors))});
}

Term Encoder::Value(const Expr& expr, const SymState& state, const ThreadCount& count, Term self) {
  std::vector<Term> slots(program_.num_slots, 0);
  return EvalIn(expr, state, count, self, slots, nullptr);
}

Term Encoder::Instance(const Expr& quantified, const SymState& state, const ThreadCount& count,
                       Term self, Term thread) {
  std::vector<Term> slots(program_.num_slots, 0);
  std::vector<Term> errors;
  slots[quantified.var] = thread;
  const Term value = EvalIn(*quantified.args[0], state, count, self, slots, &errors);
  return errors.empty() ? value : s_.And({value, s_.Not(s_.Or(errors))});
}

Term Encoder::AtLeast(const Expr& e, const Int& k, const SymState& state, const ThreadCount& count,
                      Term self, std::vector<Term>& slots) {
  if (k <= 0) return s_.BoolValue(true);
  if (k > 8) {
    throw InputError(e.where,
                     "with the thread count left symbolic, druba compares count(...) "
                     "only with numbers up to 8");
  }
  const auto witnesses = static_cast<std::size_t>(k);
  std::vector<Term> vars;
  std::vector<Term> body;
  for (std::size_t w = 0; w < witnesses; ++w) {
    const Term i = FreshThread(count, "w");
    vars.push_back(i);
    body.push_back(InRange(i, count));
    if (e.exclude_self) body.push_back(s_.Not(s_.Eq(i, self)));
    for (std::size_t u = 0; u < w; ++u) body.push_back(s_.Not(s_.Eq(vars[u], i)));
    slots[e.var] = i;
    body.push_back(EvalIn(*e.args[0], state, count, self, slots, nullptr));
  }
  Term out = s_.And(body);
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) out = s_.Quantify(false, *it, out);
  return out;
}

void Encoder::QuantifiedErrors(const Expr& e, const SymState& state, const ThreadCount& count,
                               Term self, std::vector<Term>& slots, std::vector<Term>* errors) {
  const Term i = FreshThread(count, "err");
  slots[e.var] = i;
  std::vector<Term> body_errors;
  EvalIn(*e.args[0], state, count, self, slots, &body_errors);
  if (body_errors.empty()) return;
  std::vector<Term> guard{InRange(i, count), s_.Or(body_errors)};
  if (e.exclude_self) guard.push_back(s_.Not(s_.Eq(i, self)));
  errors->push_back(s_.Quantify(false, i, s_.And(guard)));
}

Term Encoder::IndexedThread(const Expr& index, const SymState& state, const ThreadCount& count,
                            Term self, std::vector<Term>& slots, std::vector<Term>* errors) {
  const Term t = EvalIn(index, state, count, self, slots, errors);
  if (errors != nullptr && index.kind != Expr::Kind::kBound) {
    errors->push_back(s_.Not(InRange(t, count)));
  }
  return t;
}

Term Encoder::EvalIn(const Expr& e, const SymState& state, const ThreadCount& count, Term self,
                     std::vector<Term>& slots, std::vector<Term>* errors) {
  const auto thread_of = [&](const Expr& expr) -> Term {
    return expr.args.empty() ? self
                             : IndexedThread(*expr.args[0], state, count, self, slots, errors);
  };
  switch (e.kind) {
    case Expr::Kind::kNumber:
    case Expr::Kind::kLabel:
      return s_.IntValue(e.value);
    case Expr::Kind::kBool:
      return s_.BoolValue(e.value != 0);
    case Expr::Kind::kHavoc:  // taken by the assignment (Encoder::Exec) before any evaluation
      throw std::logic_error("Encoder: `*` outside an assignment");
    case Expr::Kind::kShared: {
      const Term v = state.shared[e.var];
      return e.sort == Sort::kBool ? s_.Not(s_.Eq(v, s_.Num(0))) : v;
    }
    case Expr::Kind::kLocal: {
      const Term v = s_.Select(state.locals[e.var], thread_of(e));
      return e.sort == Sort::kBool ? s_.Not(s_.Eq(v, s_.Num(0))) : v;
    }
    case Expr::Kind::kPc:
      return s_.Select(state.pc, thread_of(e));
    case Expr::Kind::kPair: {
      const Term row = IndexedThread(*e.args[0], state, count, self, slots, errors);
      const Term column = IndexedThread(*e.args[1], state, count, self, slots, errors);
      const Term v = s_.Select2(state.pairs[e.var], row, column);
      return e.sort == Sort::kBool ? s_.Not(s_.Eq(v, s_.Num(0))) : v;
    }
    case Expr::Kind::kSharedElement:
    case Expr::Kind::kLocalElement: {
      const Term index = EvalIn(*e.args[0], state, count, self, slots, errors);
      const auto size = static_cast<std::uint32_t>(e.value);
      if (errors != nullptr) errors->push_back(OutOfRange(index, size));
      const auto element = [&](std::uint32_t k) {
        return e.kind == Expr::Kind::kSharedElement ? state.shared[e.var + k]
                                                    : s_.Select(state.locals[e.var + k], self);
      };
      Term v = element(size - 1);
      for (std::uint32_t k = size - 1; k-- > 0;) {
        v = s_.Ite(s_.Eq(index, s_.Num(k)), element(k), v);
      }
      return e.sort == Sort::kBool ? s_.Not(s_.Eq(v, s_.Num(0))) : v;
    }
    case Expr::Kind::kSelf:
      return self;
    case Expr::Kind::kBound:
      return slots[e.var];
    case Expr::Kind::kUnary: {
      const Term a = EvalIn(*e.args[0], state, count, self, slots, errors);
      return e.op == Expr::Op::kNot ? s_.Not(a) : s_.Apply(Fn::kNeg, {a});
    }
    case Expr::Kind::kBinary: {
      if (!count.fixed && drb::ComparedWithNumber(e)) {
        return CompareCount(e, state, count, self, slots, errors);
      }
      const Term a = EvalIn(*e.args[0], state, count, self, slots, errors);
      const Term b = EvalIn(*e.args[1], state, count, self, slots, errors);
      return ApplyBinary(e.op, a, b, errors);
    }
    case Expr::Kind::kForall:
    case Expr::Kind::kExists:
    case Expr::Kind::kCount:
      return count.fixed ? ExpandQuantifier(e, state, count, self, slots, errors)
                         : QuantifySymbolically(e, state, count, self, slots, errors);
    case Expr::Kind::kIte: {  // a failure of the branch not taken is none
      const Term c = EvalIn(*e.args[0], state, count, self, slots, errors);
      std::vector<Term> then_errors;
      std::vector<Term> else_errors;
      const auto branch_errors = [&](std::vector<Term>& v) { return errors ? &v : nullptr; };
      const Term a = EvalIn(*e.args[1], state, count, self, slots, branch_errors(then_errors));
      const Term b = EvalIn(*e.args[2], state, count, self, slots, branch_errors(else_errors));
      if (!then_errors.empty()) errors->push_back(s_.And({c, s_.Or(then_errors)}));
      if (!else_errors.empty()) errors->push_back(s_.And({s_.Not(c), s_.Or(else_errors)}));
      return s_.Ite(c, a, b);
    }
  }
  throw std::logic_error("Encoder: bad expression");
}

Term Encoder::ApplyBinary(Expr::Op op, Term a, Term b, std::vector<Term>* errors) {
  switch (op) {
    case Expr::Op::kAdd:
      return s_.Apply(Fn::kAdd, {a, b});
    case Expr::Op::kSub:
      return s_.Apply(Fn::kSub, {a, b});
    case Expr::Op::kMul:
      return s_.Apply(Fn::kMul, {a, b});
    case Expr::Op::kDiv:
    case Expr::Op::kMod:
      if (errors != nullptr) errors->push_back(s_.Eq(b, s_.Num(0)));
      return s_.Apply(op == Expr::Op::kDiv ? Fn::kDiv : Fn::kMod, {a, b});
    case Expr::Op::kEq:
      return s_.Eq(a, b);
    case Expr::Op::kNe:
      return s_.Not(s_.Eq(a, b));
    case Expr::Op::kLt:
      return s_.Lt(a, b);
    case Expr::Op::kLe:
      return s_.Le(a, b);
    case Expr::Op::kGt:
      return s_.Lt(b, a);
    case Expr::Op::kGe:
      return s_.Le(b, a);
    case Expr::Op::kAnd:
      return s_.And({a, b});
    case Expr::Op::kOr:
      return s_.Or({a, b});
    case Expr::Op::kImplies:
      return s_.Implies(a, b);
    default:
      break;
  }
  throw std::logic_error("Encoder: bad binary operator");
}

Term Encoder::CompareCount(const Expr& e, const SymState& state, const ThreadCount& count,
                           Term self, std::vector<Term>& slots, std::vector<Term>* errors) {
  const bool left = e.args[0]->kind == Expr::Kind::kCount;
  const Expr& c = *e.args[left ? 0 : 1];
  const Expr& other = *e.args[left ? 1 : 0];
  const Expr::Op op = CountOnLeft(e);
  const Int& k = other.value;
  if (errors != nullptr) QuantifiedErrors(c, state, count, self, slots, errors);
  const auto at_least = [&](const Int& m) { return AtLeast(c, m, state, count, self, slots); };
  switch (op) {
    case Expr::Op::kGe:
      return at_least(k);
    case Expr::Op::kGt:
      return at_least(k + 1);
    case Expr::Op::kLe:
      return s_.Not(at_least(k + 1));
    case Expr::Op::kLt:
      return s_.Not(at_least(k));
    case Expr::Op::kEq:
      return s_.And({at_least(k), s_.Not(at_least(k + 1))});
    default:
      return s_.Not(s_.And({at_least(k), s_.Not(at_least(k + 1))}));
  }
}

Term Encoder::ExpandQuantifier(const Expr& e, const SymState& state, const ThreadCount& count,
                               Term self, std::vector<Term>& slots, std::vector<Term>* errors) {
  // Inside a statement, a runtime error in the body for any thread the quantifier ranges over is
  // an error of the statement (the interpreter evaluates every body).
  std::vector<Term> parts;
  for (std::uint32_t c = 0; c < *count.fixed; ++c) {
    slots[e.var] = s_.Num(c);
    std::vector<Term> body_errors;
    Term body =
        EvalIn(*e.args[0], state, count, self, slots, errors != nullptr ? &body_errors : nullptr);
    const Term other = s_.Not(s_.Eq(s_.Num(c), self));
    if (errors != nullptr && !body_errors.empty()) {
      const Term err = s_.Or(body_errors);
      errors->push_back(e.exclude_self ? s_.And({other, err}) : err);
    }
    if (e.kind == Expr::Kind::kForall) {
      parts.push_back(e.exclude_self ? s_.Implies(other, body) : body);
    } else {
      if (e.exclude_self) body = s_.And({other, body});
      parts.push_back(e.kind == Expr::Kind::kExists ? body : s_.Ite(body, s_.Num(1), s_.Num(0)));
    }
  }
  if (e.kind == Expr::Kind::kForall) return s_.And(parts);
  if (e.kind == Expr::Kind::kExists) return s_.Or(parts);
  Term sum = s_.Num(0);
  for (const Term p : parts) sum = s_.Apply(Fn::kAdd, {sum, p});
  return sum;
}

Term Encoder::QuantifySymbolically(const Expr& e, const SymState& state, const ThreadCount& count,
                                   Term self, std::vector<Term>& slots, std::vector<Term>* errors) {
  if (e.kind == Expr::Kind::kCount) return CountValue(e, state, count, self, slots, errors);
  // A runtime error in the body for any thread in range is an error of the statement.
  if (errors != nullptr) QuantifiedErrors(e, state, count, self, slots, errors);
  const Term i = FreshThread(count, "q");
  slots[e.var] = i;
  const Term body = EvalIn(*e.args[0], state, count, self, slots, nullptr);
  std::vector<Term> guard{InRange(i, count)};
  if (e.exclude_self) guard.push_back(s_.Not(s_.Eq(i, self)));
  if (e.kind == Expr::Kind::kForall) {
    return s_.Quantify(true, i, s_.Implies(s_.And(guard), body));
  }
  guard.push_back(body);
  return s_.Quantify(false, i, s_.And(guard));
}

}  // namespace druba::predabs
