#include "interp/model.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace druba::predabs {
namespace {

// Why writing a value `var` cannot hold fails.
Failure OutOfRange(const Variable& var) {
  return var.type == Type::kNat && !var.upper ? Failure::kNegativeNat : Failure::kOutOfRange;
}

// A runtime error inside a statement: the thread goes to the error location.
// Caught inside this file, never thrown out of it (a std::exception all the same, so that a
// mistake reaches the front end's handler rather than std::terminate).
struct RuntimeFailure : std::exception {
  explicit RuntimeFailure(Failure k) : kind(k) {}
  const char* what() const noexcept override { return "a runtime error in an expression"; }
  Failure kind;
};

// A binary operator on two values (both operands were evaluated: a runtime error in either is an
// error, as in the solver encoding).
Int ApplyBinary(Expr::Op op, const Int& a, const Int& b) {
  if (const std::optional<Int> v = drb::ApplyBinaryOp(op, a, b)) return *v;
  throw RuntimeFailure(Failure::kDivisionByZero);
}

}  // namespace

Word ValueTable::Encode(const Int& value) {
  Int magnitude = value;
  if (magnitude < 0) magnitude.backend().negate();
  if (!magnitude.is_zero() && boost::multiprecision::msb(magnitude) + 1 >= kMaxValueBits) {
    throw ValueOverflow(
        "a value needs " + std::to_string(boost::multiprecision::msb(magnitude) + 1) +
        " bits, and druba computes with fewer than " + std::to_string(kMaxValueBits));
  }
  if (magnitude.is_zero() || boost::multiprecision::msb(magnitude) < 30) {
    const auto v = static_cast<std::int32_t>(value);
    return static_cast<Word>(v) << 1;
  }
  std::string key = value.str();
  const auto [it, inserted] = index_.try_emplace(std::move(key), 0);
  if (inserted) {
    it->second = static_cast<Word>(bigs_.size() << 1 | 1U);
    bigs_.push_back(value);
  }
  return it->second;
}

struct IntModel::Env {
  std::vector<Word> words;
  std::vector<std::pair<const std::vector<Instr>*, std::size_t>> frames;
  std::uint32_t thread = 0;
};

IntModel::IntModel(const Program& program, std::uint32_t num_threads)
    : program_(program),
      n_(num_threads),
      base_(program.shared.size()),
      stride_(1 + program.locals.size() + program.pairs.size() * std::size_t{num_threads}),
      width_(base_ + std::size_t{num_threads} * stride_) {
  for (std::uint32_t t = 0; t < program.templates.size(); ++t) {
    const std::uint32_t count = program.templates.size() == 1 ? n_ : program.templates[t].count;
    for (std::uint32_t c = 0; c < count; ++c) template_of_.push_back(t);
  }
  if (template_of_.size() != n_) {
    throw std::logic_error("IntModel: the thread count does not match the templates");
  }
  if (program.chooses_at.line != 0) samples_ = SampleValues(program);
  initial_.resize(width_);
  for (std::size_t v = 0; v < program.shared.size(); ++v) {
    initial_[v] = values_.Encode(program.shared[v].init);
  }
  for (std::uint32_t t = 0; t < n_; ++t) {
    initial_[PcSlot(t)] = program.templates[template_of_[t]].first;
    for (std::uint32_t v = 0; v < program.locals.size(); ++v) {
      initial_[LocalSlot(t, v)] = values_.Encode(program.locals[v].init);
    }
    for (std::uint32_t p = 0; p < program.pairs.size(); ++p) {
      for (std::uint32_t c = 0; c < n_; ++c) {
        initial_[PairSlot(t, p, c)] = values_.Encode(program.pairs[p].init);
      }
    }
  }
}

Int IntModel::Eval(const Expr& expr, StateView state, std::uint32_t self) const {
  std::vector<Int> slots(program_.num_slots);
  return EvalIn(expr, state, self, slots);
}

bool IntModel::Holds(const Expr& expr, StateView state, std::uint32_t self) const {
  try {
    return Eval(expr, state, self) != 0;
  } catch (const RuntimeFailure&) {
    return false;
  }
}

Int IntModel::EvalIn(const Expr& e, StateView state, std::uint32_t self,
                     std::vector<Int>& slots) const {
  const auto thread_of = [&](const Expr& expr) -> std::uint32_t {
    if (expr.args.empty()) return self;
    const Int index = EvalIn(*expr.args[0], state, self, slots);
    if (index < 0 || index >= n_) throw RuntimeFailure(Failure::kBadIndex);
    return static_cast<std::uint32_t>(index);
  };
  switch (e.kind) {
    case Expr::Kind::kNumber:
    case Expr::Kind::kBool:
    case Expr::Kind::kLabel:
      return e.value;
    case Expr::Kind::kHavoc:  // taken by Assign before any evaluation
      throw std::logic_error("Eval: `*` outside an assignment");
    case Expr::Kind::kShared:
      return values_.Decode(state[e.var]);
    case Expr::Kind::kLocal:
      return values_.Decode(state[LocalSlot(thread_of(e), e.var)]);
    case Expr::Kind::kPc:
      return Int(state[PcSlot(thread_of(e))]);
    case Expr::Kind::kPair: {  // both indices evaluated before either is checked
      const Int row = EvalIn(*e.args[0], state, self, slots);
      const Int column = EvalIn(*e.args[1], state, self, slots);
      if (row < 0 || row >= n_ || column < 0 || column >= n_) {
        throw RuntimeFailure(Failure::kBadIndex);
      }
      return values_.Decode(state[PairSlot(static_cast<std::uint32_t>(row), e.var,
                                           static_cast<std::uint32_t>(column))]);
    }
    case Expr::Kind::kSelf:
      return Int(self);
    case Expr::Kind::kBound:
      return slots[e.var];
    case Expr::Kind::kUnary: {
      const Int v = EvalIn(*e.args[0], state, self, slots);
      return e.op == Expr::Op::kNot ? Int(v == 0 ? 1 : 0) : Int(-v);
    }
    case Expr::Kind::kBinary:
      return ApplyBinary(e.op, EvalIn(*e.args[0], state, self, slots),
                         EvalIn(*e.args[1], state, self, slots));
    case Expr::Kind::kForall:
    case Expr::Kind::kExists:
    case Expr::Kind::kCount:
      return EvalQuantifier(e, state, self, slots);
    case Expr::Kind::kIte:  // only the branch taken
      return EvalIn(*e.args[EvalIn(*e.args[0], state, self, slots) != 0 ? 1 : 2], state, self,
                    slots);
    case Expr::Kind::kSharedElement:
    case Expr::Kind::kLocalElement: {
      const Int index = EvalIn(*e.args[0], state, self, slots);
      if (index < 0 || index >= e.value) throw RuntimeFailure(Failure::kBadIndex);
      const auto var = e.var + static_cast<std::uint32_t>(index);
      return values_.Decode(
          state[e.kind == Expr::Kind::kSharedElement ? var : LocalSlot(self, var)]);
    }
  }
  throw std::logic_error("Eval: bad expression");
}

Int IntModel::EvalQuantifier(const Expr& e, StateView state, std::uint32_t self,
                             std::vector<Int>& slots) const {
  Int count = 0;
  for (std::uint32_t i = 0; i < n_; ++i) {
    if (e.exclude_self && i == self) continue;
    slots[e.var] = i;
    if (EvalIn(*e.args[0], state, self, slots) != 0) ++count;  // every body is evaluated
  }
  const std::uint32_t range = e.exclude_self ? n_ - 1 : n_;
  if (e.kind == Expr::Kind::kForall) return count == range ? 1 : 0;
  if (e.kind == Expr::Kind::kExists) return count > 0 ? 1 : 0;
  return count;
}

bool IntModel::AnyThreadFailed(StateView state) const {
  for (std::uint32_t t = 0; t < n_; ++t) {
    if (state[PcSlot(t)] == program_.error_pc) return true;
  }
  return false;
}

bool IntModel::HasValueBeyond(StateView state, std::int64_t bound) const {
  const auto beyond = [&](Word w) {
    if ((w & 1U) != 0) return true;  // interned: at least 2^30
    const std::int64_t v = static_cast<std::int32_t>(w) >> 1;
    return v > bound || v < -bound;
  };
  for (std::size_t slot = 0; slot < width_; ++slot) {
    const bool pc = slot >= base_ && (slot - base_) % stride_ == 0;
    if (!pc && beyond(state[slot])) return true;
  }
  return false;
}

void IntModel::RaiseLargest(StateView state, std::vector<std::uint64_t>& largest) const {
  const auto magnitude = [](Word w) -> std::uint64_t {
    if ((w & 1U) != 0) return std::uint64_t{1} << 30;  // interned: at least 2^30
    const std::int64_t v = static_cast<std::int32_t>(w) >> 1;
    return static_cast<std::uint64_t>(v < 0 ? -v : v);
  };
  const std::size_t shared = program_.shared.size();
  for (std::size_t v = 0; v < shared; ++v) {
    largest[v] = std::max(largest[v], magnitude(state[v]));
  }
  for (std::uint32_t t = 0; t < n_; ++t) {
    for (std::uint32_t v = 0; v < program_.locals.size(); ++v) {
      largest[shared + v] = std::max(largest[shared + v], magnitude(state[LocalSlot(t, v)]));
    }
  }
}

bool IntModel::CanMove(StateView state, std::uint32_t thread) {
  SuccessorBuffer local;
  Successors(state, thread, local);
  return !local.actions.empty();
}

bool IntModel::Finished(StateView state, std::uint32_t thread) const {
  const std::uint32_t pc = state[PcSlot(thread)];
  return pc >= program_.statements.size() || program_.statements[pc].label.starts_with("end");
}

bool IntModel::Deadlocked(StateView state) {
  bool unfinished = false;
  for (std::uint32_t t = 0; t < n_; ++t) {
    if (CanMove(state, t)) return false;
    unfinished = unfinished || !Finished(state, t);
  }
  return unfinished;
}

void IntModel::Successors(StateView state, std::uint32_t thread, SuccessorBuffer& out) {
  out.actions.clear();
  out.words.clear();
  const std::uint32_t pc = state[PcSlot(thread)];
  if (pc >= program_.statements.size()) return;  // finished or failed: it stutters
  const Statement& statement = program_.statements[pc];
  Env env;
  env.words.assign(state.begin(), state.end());
  env.thread = thread;
  Run(statement.body, 0, env, pc, out);
}

void IntModel::Run(const std::vector<Instr>& ops, std::size_t at, Env& env, std::uint32_t action,
                   SuccessorBuffer& out) {
  const std::size_t pc_slot = PcSlot(env.thread);
  const auto finish = [&](std::uint32_t target) {
    env.words[pc_slot] = target;
    out.actions.push_back(action);
    out.words.insert(out.words.end(), env.words.begin(), env.words.end());
  };
  const auto fail = [&](Failure kind) {
    last_failure_ = kind;
    finish(program_.error_pc);
  };
  const std::vector<Instr>* block = &ops;
  std::size_t index = at;
  std::vector<Int> slots(program_.num_slots);
  try {
    for (;;) {
      if (index == block->size()) {
        if (env.frames.empty()) {
          finish(program_.statements[action].next);
          return;
        }
        block = env.frames.back().first;
        index = env.frames.back().second;
        env.frames.pop_back();
        continue;
      }
      const Instr& op = (*block)[index++];
      const StateView now(env.words);
      switch (op.kind) {
        case Instr::Kind::kAssign:
          if (std::any_of(op.exprs.begin(), op.exprs.end(),
                          [](const ExprPtr& e) { return e->kind == Expr::Kind::kHavoc; })) {
            env.frames.emplace_back(block, index);
            AssignEachChoice(op, env, slots, action, out);
            return;
          }
          Assign(op, env, slots);
          break;
        case Instr::Kind::kAssignEach:
          AssignEach(op, env, slots);
          break;
        case Instr::Kind::kAssume:
          if (EvalIn(*op.exprs[0], now, env.thread, slots) == 0) return;
          break;
        case Instr::Kind::kAssert:
          if (EvalIn(*op.exprs[0], now, env.thread, slots) == 0) {
            fail(op.unsafe ? Failure::kUnsafe : Failure::kAssert);
            return;
          }
          break;
        case Instr::Kind::kIf: {
          const bool taken = EvalIn(*op.exprs[0], now, env.thread, slots) != 0;
          env.frames.emplace_back(block, index);
          block = &op.blocks[taken ? 0 : 1];
          index = 0;
          break;
        }
        case Instr::Kind::kChoice: {
          env.frames.emplace_back(block, index);
          for (const auto& alternative : op.blocks) {
            Env copy = env;
            Run(alternative, 0, copy, action, out);
          }
          return;
        }
        case Instr::Kind::kGoto:
          finish(op.label);
          return;
      }
    }
  } catch (const RuntimeFailure& failure) {
    fail(failure.kind);
  } catch (const ValueOverflow& overflow) {
    if (limits_ == nullptr) throw;
    // No successor for this step (a wrong one could be taken for a violation); the stopped
    // limits end the run as `unknown`, so the missing successor never counts toward `safe`.
    limits_->Stop(std::string(overflow.what()) + " (" + DescribeAction(env.thread, action) + ")");
  }
}

void IntModel::AssignEachChoice(const Instr& op, Env& env, std::vector<Int>& slots,
                                std::uint32_t action, SuccessorBuffer& out) {
  static const std::vector<Instr> kRest;  // the statement goes on from the frame pushed
  // Per target, the samples inside its range (its lower bound when none is).
  std::vector<std::vector<Int>> kept;
  for (std::size_t i = 0; i < op.exprs.size(); ++i) {
    if (op.exprs[i]->kind != Expr::Kind::kHavoc) continue;
    const Variable& var = drb::TargetVariable(program_, op.targets[i]);
    std::vector<Int>& values = kept.emplace_back();
    if (var.type == Type::kBool) {
      values = {0, 1};
      continue;
    }
    for (const Int& v : samples_) {
      if (var.Holds(v)) values.push_back(v);
    }
    if (values.empty()) values.push_back(*var.lower);
  }
  std::vector<const std::vector<Int>*> ranges;
  ranges.reserve(kept.size());
  for (const std::vector<Int>& values : kept) ranges.push_back(&values);
  std::vector<std::size_t> at(ranges.size(), 0);
  for (;;) {
    std::vector<Int> chosen;
    for (std::size_t k = 0; k < ranges.size(); ++k) chosen.push_back((*ranges[k])[at[k]]);
    Env copy = env;
    Assign(op, copy, slots, chosen);
    Run(kRest, 0, copy, action, out);
    std::size_t k = 0;
    while (k < at.size() && ++at[k] == ranges[k]->size()) at[k++] = 0;
    if (k == at.size()) return;
  }
}

void IntModel::Assign(const Instr& op, Env& env, std::vector<Int>& slots,
                      const std::vector<Int>& chosen) {
  const StateView now(env.words);
  std::vector<Int> values;
  values.reserve(op.exprs.size());
  std::size_t next_choice = 0;
  for (const ExprPtr& expr : op.exprs) {
    values.push_back(expr->kind == Expr::Kind::kHavoc ? chosen.at(next_choice++)
                                                      : EvalIn(*expr, now, env.thread, slots));
  }
  // Where each target writes: its slot, an index evaluated now (before any write).
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < op.targets.size(); ++i) {
    const Instr::Target& target = op.targets[i];
    const Variable& var = drb::TargetVariable(program_, target);
    std::uint32_t element = target.var;
    std::uint32_t owner = env.thread;
    if (target.pair) {
      const Int row = EvalIn(*target.index, now, env.thread, slots);
      const Int column = EvalIn(*target.column, now, env.thread, slots);
      if (row < 0 || row >= n_ || column < 0 || column >= n_) {
        throw RuntimeFailure(Failure::kBadIndex);
      }
      where.push_back(PairSlot(static_cast<std::uint32_t>(row), target.var,
                               static_cast<std::uint32_t>(column)));
    } else if (target.index) {
      const Int index = EvalIn(*target.index, now, env.thread, slots);
      const std::uint32_t range = target.size > 0 ? target.size : n_;
      if (index < 0 || index >= range) throw RuntimeFailure(Failure::kBadIndex);
      if (target.size > 0) {
        element += static_cast<std::uint32_t>(index);  // an element of a fixed-size array
      } else {
        owner = static_cast<std::uint32_t>(index);  // another thread's entry
      }
    }
    if (!target.pair) where.push_back(target.local ? LocalSlot(owner, element) : element);
    // Nothing of this step is written.
    if (!var.Holds(values[i])) throw RuntimeFailure(OutOfRange(var));
  }
  for (std::size_t i = 0; i < op.targets.size(); ++i) {
    env.words[where[i]] = values_.Encode(values[i]);
  }
}

void IntModel::AssignEach(const Instr& op, Env& env, std::vector<Int>& slots) {
  const StateView now(env.words);
  std::vector<std::pair<std::size_t, Int>> writes;
  for (std::uint32_t j = 0; j < n_; ++j) {
    if (op.exclude_self && j == env.thread) continue;
    slots[op.slot] = j;
    for (std::size_t i = 0; i < op.targets.size(); ++i) {
      Int value = EvalIn(*op.exprs[i], now, env.thread, slots);
      const Variable& var = program_.locals[op.targets[i].var];
      if (!var.Holds(value)) {
        throw RuntimeFailure(OutOfRange(var));  // nothing of this step is written
      }
      writes.emplace_back(LocalSlot(j, op.targets[i].var), std::move(value));
    }
  }
  for (const auto& [slot, value] : writes) env.words[slot] = values_.Encode(value);
}

Failure IntModel::FailureOf(StateView before, std::uint32_t thread, std::uint32_t action) {
  last_failure_ = Failure::kNone;
  SuccessorBuffer buffer;
  Env env;
  env.words.assign(before.begin(), before.end());
  env.thread = thread;
  Run(program_.statements[action].body, 0, env, action, buffer);
  return last_failure_;
}

std::string IntModel::ValueText(const Variable& var, Word word) const {
  const Int v = values_.Decode(word);
  if (var.type == Type::kBool) return v != 0 ? "true" : "false";
  return v.str();
}

std::string IntModel::DescribeState(StateView state) const {
  std::string out;
  for (std::size_t v = 0; v < program_.shared.size(); ++v) {
    if (!out.empty()) out += ' ';
    out += program_.shared[v].name + "=" + ValueText(program_.shared[v], state[v]);
  }
  for (std::uint32_t t = 0; t < n_; ++t) {
    out += out.empty() ? "" : " | ";
    out += "T" + std::to_string(t) + ": pc=" + program_.PcName(state[PcSlot(t)]);
    for (std::uint32_t v = 0; v < program_.locals.size(); ++v) {
      out += " " + program_.locals[v].name + "=" +
             ValueText(program_.locals[v], state[LocalSlot(t, v)]);
    }
    for (std::uint32_t p = 0; p < program_.pairs.size(); ++p) {  // "ok=[true,false]": row t
      out += " " + program_.pairs[p].name + "=[";
      for (std::uint32_t c = 0; c < n_; ++c) {
        if (c > 0) out += ',';
        out += ValueText(program_.pairs[p], state[PairSlot(t, p, c)]);
      }
      out += "]";
    }
  }
  return out;
}

std::string IntModel::DescribeAction(std::uint32_t thread, std::uint32_t action) const {
  const Statement& s = program_.statements[action];
  return "T" + std::to_string(thread) + " " + s.label + ": " + s.text + " (line " +
         std::to_string(s.where.line) + ")";
}

std::string IntModel::DescribeChanges(StateView before, StateView after) const {
  std::string out;
  for (std::size_t v = 0; v < program_.shared.size(); ++v) {
    if (before[v] != after[v]) {
      out += " " + program_.shared[v].name + "=" + ValueText(program_.shared[v], after[v]);
    }
  }
  for (std::uint32_t t = 0; t < n_; ++t) {
    if (before[PcSlot(t)] != after[PcSlot(t)]) {
      out += " T" + std::to_string(t) + ".pc=" + program_.PcName(after[PcSlot(t)]);
    }
    for (std::uint32_t v = 0; v < program_.locals.size(); ++v) {
      const std::size_t slot = LocalSlot(t, v);
      if (before[slot] != after[slot]) {
        out += " T" + std::to_string(t) + "." + program_.locals[v].name + "=" +
               ValueText(program_.locals[v], after[slot]);
      }
    }
    for (std::uint32_t p = 0; p < program_.pairs.size(); ++p) {
      for (std::uint32_t c = 0; c < n_; ++c) {
        const std::size_t slot = PairSlot(t, p, c);
        if (before[slot] != after[slot]) {
          out += " " + program_.pairs[p].name + "[" + std::to_string(t) + "][" + std::to_string(c) +
                 "]=" + ValueText(program_.pairs[p], after[slot]);
        }
      }
    }
  }
  return out;
}

void IntModel::Encode(StateView state, std::vector<std::uint8_t>& out) const {
  for (std::size_t slot = 0; slot < width_; ++slot) {
    const bool pc = slot >= base_ && (slot - base_) % stride_ == 0;
    if (pc || (state[slot] & 1U) == 0) {
      PutVarint(state[slot], out);
      continue;
    }
    const std::string digits = values_.Decode(state[slot]).str();
    PutVarint(std::uint64_t{digits.size()} << 1 | 1U, out);
    out.insert(out.end(), digits.begin(), digits.end());
  }
}

bool IntModel::Decode(std::span<const std::uint8_t> bytes, std::vector<Word>& words) {
  words.assign(width_, 0);
  std::size_t at = 0;
  for (std::size_t slot = 0; slot < width_; ++slot) {
    std::uint64_t value = 0;
    if (!GetVarint(bytes, at, value)) return false;
    const bool pc = slot >= base_ && (slot - base_) % stride_ == 0;
    if (pc || (value & 1U) == 0) {
      if (value > std::numeric_limits<Word>::max()) return false;
      words[slot] = static_cast<Word>(value);
      continue;
    }
    const std::uint64_t length = value >> 1;
    if (length == 0 || length > bytes.size() - at) return false;
    const std::string digits(reinterpret_cast<const char*>(bytes.data() + at), length);
    at += length;
    if (digits.find_first_not_of("-0123456789") != std::string::npos) return false;
    try {
      words[slot] = values_.Encode(Int(digits));
    } catch (const std::exception&) {  // not a number, or too large: not one of our states
      return false;
    }
  }
  return at == bytes.size();
}

const char* FailureText(Failure failure) {
  switch (failure) {
    case Failure::kAssert:
      return "the assertion fails";
    case Failure::kUnsafe:
      return "the state is unsafe";
    case Failure::kDivisionByZero:
      return "division by zero";
    case Failure::kNegativeNat:
      return "a nat variable would become negative";
    case Failure::kOutOfRange:
      return "a variable would leave its range";
    case Failure::kBadIndex:
      return "an index out of range";
    case Failure::kNone:
      break;
  }
  return "";
}

}  // namespace druba::predabs
