#include "invariants/flag_candidates.h"

#include <functional>

#include <fmt/format.h>

#include "drb/ordered.h"

namespace druba::predabs {
namespace {

constexpr std::size_t kMaxTable = 1U << 22;  // entries of the order table at most

// [shared..., then locals...]: the flags, variables that hold 0 or 1 alone: Booleans, and integers
// that start at 0 or 1 and are only ever given 0, 1 or another flag's value (`inc_flag := 1`,
// `tmp := dec_flag`). What the instances showed would not do: a counter may take 0 and 1 alone
// in a few threads' runs.
std::vector<bool> Flags(const Program& p) {
  const std::size_t ns = p.shared.size();
  std::vector<bool> flag(ns + p.locals.size());
  for (std::size_t v = 0; v < flag.size(); ++v) {
    const Variable& var = v < ns ? p.shared[v] : p.locals[v - ns];
    flag[v] = var.name.find('[') == std::string::npos &&
              (var.type == Type::kBool || (!var.any && var.init >= 0 && var.init <= 1));
  }
  const auto of = [&](const Expr& e) -> bool {
    switch (e.kind) {
      case Expr::Kind::kNumber:
        return e.value >= 0 && e.value <= 1;
      case Expr::Kind::kBool:
        return true;
      case Expr::Kind::kShared:
        return flag[e.var];
      case Expr::Kind::kLocal:
        return e.args.empty() && flag[ns + e.var];
      default:
        return e.sort == Sort::kBool;
    }
  };
  const std::function<bool(const std::vector<Instr>&)> visit = [&](const std::vector<Instr>& body) {
    bool changed = false;
    for (const Instr& in : body) {
      for (const std::vector<Instr>& block : in.blocks) changed = visit(block) || changed;
      if (in.kind != Instr::Kind::kAssign && in.kind != Instr::Kind::kAssignEach) continue;
      for (std::size_t t = 0; t < in.targets.size(); ++t) {
        const Instr::Target& target = in.targets[t];
        const std::size_t v = target.local ? ns + target.var : target.var;
        if (v < flag.size() && flag[v] && (target.pair || !of(*in.exprs[t]))) {
          flag[v] = false;
          changed = true;
        }
      }
    }
    return changed;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (const Statement& st : p.statements) changed = visit(st.body) || changed;
  }
  return flag;
}

// A flag's value as 0 or 1, or -1 where it holds neither.
int FlagValue(const Int& v) {
  return v < 0 || v > 1 ? -1 : v == 0 ? 0 : 1;
}

}  // namespace

FlagOrderReader::FlagOrderReader(const Program& program, const instance_detail::Observations& seen)
    : program_(program), pcs_(seen.pcs), live_(seen.own_live) {
  const drb::IdVariables ids = drb::ThreadNamers(program);
  const std::vector<bool> flag = Flags(program);
  const auto plain = [](const Variable& var) { return var.name.find('[') == std::string::npos; };
  for (std::uint32_t v = 0; v < program.shared.size(); ++v) {
    const Variable& var = program.shared[v];
    if (!plain(var) || ids.shared[v]) continue;
    if (flag[v]) {
      flags_.push_back({true, v});
    } else if (var.type != Type::kBool) {
      terms_.push_back({true, v});
    }
  }
  for (std::uint32_t v = 0; v < program.locals.size(); ++v) {
    const Variable& var = program.locals[v];
    if (!plain(var) || ids.locals[v]) continue;
    if (flag[program.shared.size() + v]) {
      flags_.push_back({false, v});
    } else if (var.type != Type::kBool) {
      numbers_.push_back({false, v});
      terms_.push_back({false, v});
    }
  }
  const std::size_t size = pcs_ * numbers_.size() * terms_.size() * (flags_.size() * 2 + 1);
  if (!flags_.empty() && size <= kMaxTable) orders_.assign(size, 0);
  shared_terms_ = terms_.size() - numbers_.size();
  bounds_.resize((1 + flags_.size() * 2) * shared_terms_);
  for (std::size_t f = 0; f < flags_.size(); ++f) {
    if (flags_[f].shared) shared_flags_.push_back(f);
  }
  if (shared_flags_.size() >= 2)
    together_.assign(shared_flags_.size() * shared_flags_.size() * 4, false);
  const std::size_t pair_slots = pcs_ + 1 + flags_.size() * 2;
  if (shared_terms_ >= 2 && pair_slots * shared_terms_ * shared_terms_ <= kMaxTable) {
    shared_orders_.assign(pair_slots * shared_terms_ * shared_terms_, 0);
  }
}

std::string FlagOrderReader::Text(const Term& t) const {
  return t.shared ? program_.shared[t.v].name : program_.locals[t.v].name + "[self]";
}

std::string FlagOrderReader::Condition(const Term& flag, std::size_t c) const {
  const Variable& var = flag.shared ? program_.shared[flag.v] : program_.locals[flag.v];
  return var.type == Type::kBool ? fmt::format("{}{}", c == 0 ? "" : "!", Text(flag))
                                 : fmt::format("{} != {}", Text(flag), c);
}

void FlagOrderReader::Record(const IntModel& m, StateView s) {
  const ValueTable& values = m.values();
  // The shared flags' values, once per state: the pairs of flags, the shared orders and the
  // bounds read them.
  const std::size_t n = shared_flags_.size();
  shared_value_.resize(n);
  for (std::size_t f = 0; f < n; ++f) {
    shared_value_[f] = FlagValue(values.Decode(s[flags_[shared_flags_[f]].v]));
  }
  if (!together_.empty()) {
    for (std::size_t f = 0; f < n; ++f) {
      for (std::size_t g = f + 1; g < n && shared_value_[f] >= 0; ++g) {
        if (shared_value_[g] < 0) continue;
        together_[(f * n + g) * 4 +
                  static_cast<std::size_t>(shared_value_[f] * 2 + shared_value_[g])] = true;
      }
    }
  }
  if (!shared_orders_.empty()) RecordSharedOrders(m, s);
  if (orders_.empty()) return;
  for (std::size_t y = 0; y < shared_terms_; ++y) {
    const Int v = values.Decode(s[terms_[y].v]);
    bounds_[y].Add(v);
    for (std::size_t k = 0; k < n; ++k) {
      if (const int c = shared_value_[k]; c >= 0) {
        bounds_[(1 + shared_flags_[k] * 2 + static_cast<std::size_t>(c)) * shared_terms_ + y].Add(
            v);
      }
    }
  }
  std::vector<Int> term(terms_.size());
  std::vector<int> flag(flags_.size());
  for (std::uint32_t i = 0; i < m.num_threads(); ++i) {
    const std::size_t a = s[m.PcSlot(i)];
    if (a >= pcs_) continue;
    const auto value = [&](const Term& t) {
      return values.Decode(t.shared ? s[t.v] : s[m.LocalSlot(i, t.v)]);
    };
    for (std::size_t y = 0; y < terms_.size(); ++y) term[y] = value(terms_[y]);
    for (std::size_t f = 0; f < flags_.size(); ++f) {
      const bool dead = !flags_[f].shared && !live_[a][flags_[f].v];
      flag[f] = dead ? -1 : FlagValue(value(flags_[f]));
    }
    const std::size_t locals = terms_.size() - numbers_.size();
    for (std::size_t x = 0; x < numbers_.size(); ++x) {
      if (!live_[a][numbers_[x].v]) continue;
      for (std::size_t y = 0; y < terms_.size(); ++y) {
        if (y == locals + x || (!terms_[y].shared && !live_[a][terms_[y].v])) continue;
        const std::uint8_t o = Order(term[locals + x], term[y]);
        orders_[At(a, x, y, flags_.size() * 2)] |= o;
        for (std::size_t f = 0; f < flags_.size(); ++f) {
          if (flag[f] >= 0) orders_[At(a, x, y, f * 2 + static_cast<std::size_t>(flag[f]))] |= o;
        }
      }
    }
  }
}

void FlagOrderReader::RecordSharedOrders(const IntModel& m, StateView s) {
  const ValueTable& values = m.values();
  shared_term_.resize(shared_terms_);
  for (std::size_t x = 0; x < shared_terms_; ++x) shared_term_[x] = values.Decode(s[terms_[x].v]);
  slots_.assign(1, pcs_);
  for (std::size_t f = 0; f < shared_flags_.size(); ++f) {
    if (shared_value_[f] >= 0) {
      slots_.push_back(pcs_ + 1 + shared_flags_[f] * 2 +
                       static_cast<std::size_t>(shared_value_[f]));
    }
  }
  for (std::uint32_t i = 0; i < m.num_threads(); ++i) {
    if (const std::size_t a = s[m.PcSlot(i)]; a < pcs_) slots_.push_back(a);
  }
  for (std::size_t x = 0; x < shared_terms_; ++x) {
    for (std::size_t y = x + 1; y < shared_terms_; ++y) {
      const std::uint8_t o = Order(shared_term_[x], shared_term_[y]);
      for (const std::size_t slot : slots_) shared_orders_[PairAt(slot, x, y)] |= o;
    }
  }
}

void FlagOrderReader::SharedOrderCandidates(const Places& places,
                                            std::vector<std::string>& out) const {
  for (std::size_t x = 0; x < shared_terms_; ++x) {
    for (std::size_t y = x + 1; y < shared_terms_; ++y) {
      const std::uint8_t all = shared_orders_[PairAt(pcs_, x, y)];
      const auto emit = [&](const std::string& head, std::uint8_t o) {
        out.push_back(
            fmt::format("{}{} {} {}", head, Text(terms_[x]), kOrderOps[o], Text(terms_[y])));
      };
      if (Informative(all)) emit("", all);
      for (const std::size_t f : shared_flags_) {
        for (std::size_t c = 0; c < 2; ++c) {
          const std::uint8_t here = shared_orders_[PairAt(pcs_ + 1 + f * 2 + c, x, y)];
          if (Informative(here) && here != all) emit(Condition(flags_[f], c) + " || ", here);
        }
      }
      for (std::size_t k = 0; k < places.named.size(); ++k) {
        const std::uint8_t here = shared_orders_[PairAt(places.named[k], x, y)];
        if (Informative(here) && here != all) {
          emit(fmt::format("pc[self] != {} || ", places.labels[k]), here);
        }
      }
    }
  }
}

void FlagOrderReader::Candidates(const Places& places, std::vector<std::string>& out) const {
  if (!shared_orders_.empty()) SharedOrderCandidates(places, out);
  // Two shared flags that each took both values but never some two together.
  const std::size_t n = shared_flags_.size();
  for (std::size_t f = 0; f < n && !together_.empty(); ++f) {
    for (std::size_t g = f + 1; g < n; ++g) {
      const auto seen = [&](std::size_t cf, std::size_t cg) {
        return together_[(f * n + g) * 4 + cf * 2 + cg];
      };
      const bool f_both = (seen(0, 0) || seen(0, 1)) && (seen(1, 0) || seen(1, 1));
      const bool g_both = (seen(0, 0) || seen(1, 0)) && (seen(0, 1) || seen(1, 1));
      for (std::size_t c = 0; c < 4 && f_both && g_both; ++c) {
        if (seen(c / 2, c % 2)) continue;
        out.push_back(Condition(flags_[shared_flags_[f]], c / 2) + " || " +
                      Condition(flags_[shared_flags_[g]], c % 2));
      }
    }
  }
  if (orders_.empty()) return;
  for (std::size_t f = 0; f < flags_.size(); ++f) {
    for (std::size_t c = 0; c < 2 && flags_[f].shared; ++c) {
      for (std::size_t y = 0; y < shared_terms_; ++y) {
        const Bounds& all = bounds_[y];
        const Bounds& here = bounds_[(1 + f * 2 + c) * shared_terms_ + y];
        if (!here.lo) continue;
        const std::string head = Condition(flags_[f], c) + " || " + Text(terms_[y]);
        if (*here.lo == *here.hi && *all.lo != *all.hi) {
          out.push_back(fmt::format("{} == {}", head, here.lo->str()));
          continue;
        }
        if (*here.lo > *all.lo) out.push_back(fmt::format("{} >= {}", head, here.lo->str()));
        if (*here.hi < *all.hi) out.push_back(fmt::format("{} <= {}", head, here.hi->str()));
      }
    }
  }
  for (std::size_t k = 0; k < places.named.size(); ++k) {
    const std::size_t a = places.named[k];
    for (std::size_t x = 0; x < numbers_.size(); ++x) {
      for (std::size_t y = 0; y < terms_.size(); ++y) {
        const std::uint8_t all = orders_[At(a, x, y, flags_.size() * 2)];
        for (std::size_t f = 0; f < flags_.size() && all != 0; ++f) {
          for (std::size_t c = 0; c < 2; ++c) {
            // Where the flag took both values the same order too, or is shared, the candidate
            // is kept beside the one of the location alone: with more threads than the
            // instances had (a decrement after an increment), that one may fail where this one
            // holds (04_incdec_cas: no instance had the decrement's flag up at the increment's
            // compare-and-swap).
            const std::uint8_t here = orders_[At(a, x, y, f * 2 + c)];
            const std::uint8_t other = orders_[At(a, x, y, f * 2 + 1 - c)];
            if (!Informative(here) || (here == all && other == 0 && !flags_[f].shared)) continue;
            const std::string condition = Condition(flags_[f], c);
            out.push_back(fmt::format("pc[self] != {} || {} || {} {} {}", places.labels[k],
                                      condition, Text(numbers_[x]), kOrderOps[here],
                                      Text(terms_[y])));
          }
        }
      }
    }
  }
}

}  // namespace druba::predabs
