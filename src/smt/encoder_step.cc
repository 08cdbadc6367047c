// Encoder: one statement executed by one thread (Step, Enabled), the writes of its assignments
// and the post state it ends in.
#include <string>
#include <utility>
#include <vector>

#include "smt/encoder.h"

namespace druba::predabs {

Term Encoder::Finish(const Ctx& ctx, const Env& env, Term target) {
  if (ctx.post == nullptr) return s_.BoolValue(true);
  std::vector<Term> parts;
  for (std::size_t v = 0; v < env.shared.size(); ++v) {
    parts.push_back(s_.Eq(ctx.post->shared[v], env.shared[v]));
  }
  const Term pc = s_.Store(ctx.pre->pc, ctx.actor, target);
  const SymState after{env.shared, env.locals, pc, env.pairs, {}, {}};
  const std::vector<Term> counts = CountsAfter(*ctx.pre, after, ctx.actor, *ctx.count);
  for (std::size_t k = 0; k < counts.size(); ++k) {
    parts.push_back(s_.Eq(ctx.post->counts[k], counts[k]));
  }
  if (pointwise_posts_ && ctx.count->fixed) {
    for (std::uint32_t i = 0; i < *ctx.count->fixed; ++i) {
      const Term thread = s_.Num(i);
      for (std::size_t v = 0; v < env.locals.size(); ++v) {
        parts.push_back(
            s_.Eq(s_.Select(ctx.post->locals[v], thread), s_.Select(env.locals[v], thread)));
      }
      parts.push_back(s_.Eq(s_.Select(ctx.post->pc, thread), s_.Select(pc, thread)));
      for (std::size_t v = 0; v < env.pairs.size(); ++v) {
        for (std::uint32_t j = 0; j < *ctx.count->fixed; ++j) {
          parts.push_back(s_.Eq(s_.Select2(ctx.post->pairs[v], thread, s_.Num(j)),
                                s_.Select2(env.pairs[v], thread, s_.Num(j))));
        }
      }
    }
    return s_.And(parts);
  }
  for (std::size_t v = 0; v < env.pairs.size(); ++v) {
    parts.push_back(s_.Eq(ctx.post->pairs[v], env.pairs[v]));
  }
  for (std::size_t v = 0; v < env.locals.size(); ++v) {
    parts.push_back(s_.Eq(ctx.post->locals[v], env.locals[v]));
  }
  parts.push_back(s_.Eq(ctx.post->pc, pc));
  return s_.And(parts);
}

Term Encoder::Choose(const Instr::Target& target, std::vector<Term>& chosen,
                     std::vector<Term>& ranges) {
  const Variable& var = drb::TargetVariable(program_, target);
  const Type type = var.type;
  const Term v = s_.FreshInt("any");
  chosen.push_back(v);
  if (type != Type::kBool) ranges.push_back(Declared(s_, var, v));
  if (type == Type::kBool) ranges.push_back(s_.Or({s_.Eq(v, s_.Num(0)), s_.Eq(v, s_.Num(1))}));
  return type == Type::kBool ? s_.Eq(v, s_.Num(1)) : v;
}

Term Encoder::BindChosen(const Ctx& ctx, const std::vector<Term>& chosen,
                         const std::vector<Term>& ranges, Term rest) {
  if (chosen.empty()) return rest;
  rest = s_.And({s_.And(ranges), rest});
  if (ctx.post == nullptr) {
    for (const Term v : chosen) rest = s_.Quantify(/*forall=*/false, v, rest);
  }
  return rest;
}

std::vector<Term> Encoder::Values(const Ctx& ctx, const Instr& op, const SymState& now,
                                  std::vector<Term>& slots, std::vector<Term>& errors,
                                  std::vector<Term>& chosen, std::vector<Term>& ranges) {
  std::vector<Term> values;
  for (std::size_t i = 0; i < op.exprs.size(); ++i) {
    const Expr& expr = *op.exprs[i];
    values.push_back(expr.kind == Expr::Kind::kHavoc
                         ? Choose(op.targets[i], chosen, ranges)
                         : EvalIn(expr, now, *ctx.count, ctx.actor, slots, &errors));
  }
  return values;
}

Encoder::Env Encoder::Writes(const Ctx& ctx, const Instr& op, const std::vector<Term>& values,
                             const SymState& now, const Env& env, std::vector<Term>& slots,
                             std::vector<Term>& errors) {
  Env next = env;
  for (std::size_t i = 0; i < op.targets.size(); ++i) {
    const Instr::Target& target = op.targets[i];
    const Variable& var = drb::TargetVariable(program_, target);
    Term value = values[i];
    if (var.type == Type::kBool) value = s_.Ite(value, s_.Num(1), s_.Num(0));
    if (var.lower || var.upper) errors.push_back(s_.Not(Declared(s_, var, value)));
    if (target.pair) {
      const Term r = IndexedThread(*target.index, now, *ctx.count, ctx.actor, slots, &errors);
      const Term c = IndexedThread(*target.column, now, *ctx.count, ctx.actor, slots, &errors);
      next.pairs[target.var] = s_.Store2(env.pairs[target.var], r, c, value);
    } else if (target.index) {
      const Term index = EvalIn(*target.index, now, *ctx.count, ctx.actor, slots, &errors);
      WriteAt(target, index, value, ctx, env, next, errors);
    } else if (target.local) {
      next.locals[target.var] = s_.Store(env.locals[target.var], ctx.actor, value);
    } else {
      next.shared[target.var] = value;
    }
  }
  return next;
}

Encoder::Env Encoder::WritesEach(const Ctx& ctx, const Instr& op, const SymState& now,
                                 const Env& env, std::vector<Term>& slots,
                                 std::vector<Term>& errors) {
  // The parser makes such a program asymmetric, so only fixed counts encode it.
  if (!ctx.count->fixed) throw std::logic_error("Encoder: `forall j: a[j] := ...` needs a count");
  Env next = env;
  for (std::uint32_t j = 0; j < *ctx.count->fixed; ++j) {
    const Term thread = s_.Num(j);
    slots[op.slot] = thread;
    const Term writes = op.exclude_self ? s_.Not(s_.Eq(thread, ctx.actor)) : s_.BoolValue(true);
    for (std::size_t i = 0; i < op.targets.size(); ++i) {
      const std::uint32_t var = op.targets[i].var;
      std::vector<Term> own;
      Term value = EvalIn(*op.exprs[i], now, *ctx.count, ctx.actor, slots, &own);
      const Variable& declared = program_.locals[var];
      if (declared.type == Type::kBool) value = s_.Ite(value, s_.Num(1), s_.Num(0));
      if (declared.lower || declared.upper) own.push_back(s_.Not(Declared(s_, declared, value)));
      if (!own.empty()) errors.push_back(s_.And({writes, s_.Or(own)}));
      const Term old = s_.Select(env.locals[var], thread);
      next.locals[var] = s_.Store(next.locals[var], thread, s_.Ite(writes, value, old));
    }
  }
  return next;
}

Term Encoder::Exec(const Ctx& ctx, std::vector<Frame> frames, const Env& env) {
  for (;;) {
    Frame& top = frames.back();
    if (top.index == top.block->size()) {
      frames.pop_back();
      if (frames.empty()) return Finish(ctx, env, s_.Num(program_.statements[ctx.stmt].next));
      continue;
    }
    const Instr& op = (*top.block)[top.index++];
    SymState now{env.shared, env.locals, ctx.pre->pc, env.pairs, {}, {}};
    if (!ctx.pre->counts.empty()) now.counts = CountsAfter(*ctx.pre, now, ctx.actor, *ctx.count);
    std::vector<Term> slots(program_.num_slots, 0);
    std::vector<Term> errors;
    const Term fail = Finish(ctx, env, s_.Num(program_.error_pc));
    const auto guarded = [&](Term rest) {
      return errors.empty() ? rest : s_.Ite(s_.Or(errors), fail, rest);
    };
    switch (op.kind) {
      case Instr::Kind::kAssign: {
        std::vector<Term> chosen;
        std::vector<Term> ranges;
        const std::vector<Term> values = Values(ctx, op, now, slots, errors, chosen, ranges);
        Env next = Writes(ctx, op, values, now, env, slots, errors);
        return BindChosen(ctx, chosen, ranges, guarded(Exec(ctx, frames, next)));
      }
      case Instr::Kind::kAssignEach: {
        const Env next = WritesEach(ctx, op, now, env, slots, errors);
        return guarded(Exec(ctx, frames, next));
      }
      case Instr::Kind::kAssume: {
        const Term c = EvalIn(*op.exprs[0], now, *ctx.count, ctx.actor, slots, &errors);
        return guarded(s_.And({c, Exec(ctx, frames, env)}));
      }
      case Instr::Kind::kAssert: {
        const Term c = EvalIn(*op.exprs[0], now, *ctx.count, ctx.actor, slots, &errors);
        return guarded(s_.Ite(c, Exec(ctx, frames, env), fail));
      }
      case Instr::Kind::kIf: {
        const Term c = EvalIn(*op.exprs[0], now, *ctx.count, ctx.actor, slots, &errors);
        std::vector<Frame> then_frames = frames;
        then_frames.push_back({&op.blocks[0], 0});
        std::vector<Frame> else_frames = frames;
        else_frames.push_back({&op.blocks[1], 0});
        return guarded(s_.Ite(c, Exec(ctx, std::move(then_frames), env),
                              Exec(ctx, std::move(else_frames), env)));
      }
      case Instr::Kind::kChoice: {
        std::vector<Term> alternatives;
        for (const auto& block : op.blocks) {
          std::vector<Frame> f = frames;
          f.push_back({&block, 0});
          alternatives.push_back(Exec(ctx, std::move(f), env));
        }
        return s_.Or(alternatives);
      }
      case Instr::Kind::kGoto:
        return Finish(ctx, env, s_.Num(op.label));
    }
  }
}

Term Encoder::OutOfRange(Term index, std::uint32_t size) {
  return s_.Or({s_.Lt(index, s_.Num(0)), s_.Le(s_.Num(size), index)});
}

void Encoder::WriteAt(const Instr::Target& target, Term index, Term value, const Ctx& ctx,
                      const Env& env, Env& next, std::vector<Term>& errors) {
  if (target.size == 0) {  // another thread's entry of a per-thread array
    errors.push_back(s_.Not(InRange(index, *ctx.count)));
    next.locals[target.var] = s_.Store(env.locals[target.var], index, value);
    return;
  }
  errors.push_back(OutOfRange(index, target.size));
  for (std::uint32_t k = 0; k < target.size; ++k) {
    const Term here = s_.Eq(index, s_.Num(k));
    const std::uint32_t var = target.var + k;
    if (target.local) {
      const Term old = s_.Select(env.locals[var], ctx.actor);
      next.locals[var] = s_.Store(env.locals[var], ctx.actor, s_.Ite(here, value, old));
    } else {
      next.shared[var] = s_.Ite(here, value, env.shared[var]);
    }
  }
}

Term Encoder::Step(std::uint32_t stmt, Term actor, const SymState& pre, const SymState& post,
                   const ThreadCount& count) {
  const Ctx ctx{stmt, actor, &pre, &post, &count};
  const Term at = s_.Eq(s_.Select(pre.pc, actor), s_.Num(stmt));
  return s_.And(
      {at, Exec(ctx, {{&program_.statements[stmt].body, 0}}, {pre.shared, pre.locals, pre.pairs})});
}

Term Encoder::Enabled(std::uint32_t stmt, Term actor, const SymState& pre,
                      const ThreadCount& count) {
  const Ctx ctx{stmt, actor, &pre, nullptr, &count};
  const Term at = s_.Eq(s_.Select(pre.pc, actor), s_.Num(stmt));
  return s_.And(
      {at, Exec(ctx, {{&program_.statements[stmt].body, 0}}, {pre.shared, pre.locals, pre.pairs})});
}

}  // namespace druba::predabs
