#include "invariants/rank_candidates.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "drb/liveness.h"
#include "drb/ordered.h"
#include "invariants/value_seen.h"

namespace druba::predabs {

RankReader::RankReader(const Program& program, const Places& places)
    : program_(program), places_(places) {
  const drb::IdVariables namers = drb::ThreadNamers(program);
  const drb::IdVariables ids = drb::IdHolders(program);
  for (std::uint32_t v = 0; v < program.locals.size(); ++v) {
    const Variable& var = program.locals[v];
    if (var.name.find('[') != std::string::npos || var.type == Type::kBool) continue;
    if (!ids.locals[v] && !namers.locals[v]) numbers_.push_back(v);
  }
  const std::vector<std::uint32_t>& named = places.named;
  sets_.push_back({});
  for (std::size_t a = 0; a < named.size(); ++a) {
    sets_.push_back({named[a]});
    for (std::size_t b = a + 1; b < named.size(); ++b) {
      sets_.push_back({std::min(named[a], named[b]), std::max(named[a], named[b])});
    }
  }
  excess_.assign(numbers_.size() * sets_.size(), std::numeric_limits<std::int64_t>::min());
  largest_.assign(numbers_.size() * kRankCounts, std::nullopt);
  beyond_.assign(numbers_.size(), false);
  seen_any_.assign(numbers_.size(), false);
}

void RankReader::Record(const IntModel& m, StateView s) {
  const ValueTable& values = m.values();
  const std::uint32_t n = m.num_threads();
  const auto top = static_cast<std::int64_t>(n);
  for (std::size_t w = 0; w < numbers_.size(); ++w) {
    const auto first = excess_.begin() + static_cast<std::ptrdiff_t>(w * sets_.size());
    if (seen_any_[w] && std::all_of(first, first + static_cast<std::ptrdiff_t>(sets_.size()),
                                    [](std::int64_t e) { return e > 0; })) {
      continue;  // no set allows an offset: nothing more to learn about this variable
    }
    if (beyond_[w]) continue;  // no level (Level)
    seen_any_[w] = true;
    // The state as this variable sees it: each thread's value and location, sorted. Below the
    // levels (0 .. n-1) every value compares with them as -1 does, above them as n does.
    std::vector<std::pair<std::int64_t, std::int64_t>> threads;
    std::int64_t largest = -1;  // the largest value, n + 1 for any beyond n
    for (std::uint32_t i = 0; i < n; ++i) {
      const Int x = values.Decode(s[m.LocalSlot(i, numbers_[w])]);
      const std::int64_t level = x < 0 ? -1 : x > top ? top : static_cast<std::int64_t>(x);
      largest = std::max(largest, x > top ? top + 1 : level);
      threads.emplace_back(level, static_cast<std::int64_t>(s[m.PcSlot(i)]));
    }
    if (largest > top || n >= kRankCounts) {
      beyond_[w] = true;
      continue;
    }
    std::optional<std::int64_t>& at_n = largest_[w * kRankCounts + n];
    at_n = std::max(at_n.value_or(largest), largest);
    std::sort(threads.begin(), threads.end());
    std::vector<std::int64_t> key{static_cast<std::int64_t>(w), top};
    for (const auto& [x, pc] : threads) {
      key.push_back(x);
      key.push_back(pc);
    }
    if (!done_.insert(std::move(key)).second) continue;
    for (std::size_t k = 0; k < sets_.size(); ++k) {
      const std::vector<std::uint32_t>& set = sets_[k];
      std::int64_t& most = excess_[w * sets_.size() + k];
      for (std::int64_t j = 0; j < top; ++j) {
        std::int64_t count = 0;
        for (const auto& [x, pc] : threads) {
          const bool out =
              std::find(set.begin(), set.end(), static_cast<std::uint32_t>(pc)) != set.end();
          count += x > j || (x >= j && !out) ? 1 : 0;
        }
        most = std::max(most, count - (top - j));
      }
    }
  }
}

bool RankReader::Level(std::size_t w) const {
  return instance_detail::GrowsWithCount(std::span(largest_).subspan(w * kRankCounts, kRankCounts));
}

void RankReader::Candidates(std::vector<std::string>& out) const {
  const std::string& j = places_.j;
  const std::string i = places_.k;
  for (std::size_t w = 0; w < numbers_.size(); ++w) {
    if (!seen_any_[w] || beyond_[w] || !Level(w)) continue;
    const std::string& x = program_.locals[numbers_[w]].name;
    // The offset each set allows: -1, 0, or none (1).
    const auto offset = [&](std::size_t k) -> std::int64_t {
      const std::int64_t e = excess_[w * sets_.size() + k];
      return e <= -1 ? -1 : e <= 0 ? 0 : 1;
    };
    // An offset -1 at level j - 1 bounds the threads at or past j (any set) by n - j: where some
    // set allows -1, the candidates with offset 0 are implied.
    std::int64_t least = 1;
    for (std::size_t k = 0; k < sets_.size(); ++k) least = std::min(least, offset(k));
    for (std::size_t k = 0; k < sets_.size(); ++k) {
      const std::int64_t c = offset(k);
      if (c > least) continue;
      // Left out where a subset of this set allows as small an offset.
      bool implied = false;
      for (std::size_t l = 0; l < sets_.size() && !implied; ++l) {
        if (l == k || offset(l) > c) continue;
        implied = std::includes(sets_[k].begin(), sets_[k].end(), sets_[l].begin(), sets_[l].end());
      }
      if (implied) continue;
      std::string past = fmt::format("{0}[{1}] >= {2}", x, i, j);
      for (const std::uint32_t pc : sets_[k]) {
        past += fmt::format(" && pc[{}] != {}", i, *LabelOf(program_, pc));
      }
      out.push_back(
          fmt::format("forall {0}: count({1}: {2}[{1}] > {0} || {3}) <= count({1}: true){4} - {0}",
                      j, i, x, past, c < 0 ? " - 1" : ""));
    }
  }
}

EntryReader::EntryReader(const Program& program)
    : program_(program), pcs_(program.statements.size() + 2) {
  const drb::IdVariables ids = drb::IdHolders(program);
  const auto add = [&](std::uint32_t entry, const Expr& index) {
    if (!ids.locals[entry] || index.kind != Expr::Kind::kLocal || !index.args.empty()) return;
    const std::pair<std::uint32_t, std::uint32_t> read{entry, index.var};
    if (std::find(reads_.begin(), reads_.end(), read) == reads_.end()) reads_.push_back(read);
  };
  const std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e.kind == Expr::Kind::kLocal && e.args.size() == 1) add(e.var, *e.args[0]);
    for (const auto& a : e.args) visit(*a);
  };
  const std::function<void(const std::vector<Instr>&)> walk = [&](const auto& block) {
    for (const Instr& op : block) {
      for (const auto& e : op.exprs) visit(*e);
      for (const Instr::Target& t : op.targets) {
        if (t.local && t.size == 0 && t.index) add(t.var, *t.index);
      }
      for (const auto& inner : op.blocks) walk(inner);
    }
  };
  for (const auto& st : program.statements) walk(st.body);
  seen_.assign(reads_.size() * pcs_, Seen{std::vector<bool>(pcs_, false)});
}

void EntryReader::Record(const IntModel& m, StateView s) {
  const ValueTable& values = m.values();
  const std::uint32_t n = m.num_threads();
  for (std::size_t r = 0; r < reads_.size(); ++r) {
    const auto [entry, index] = reads_[r];
    for (std::uint32_t i = 0; i < n; ++i) {
      const Int x = values.Decode(s[m.LocalSlot(i, index)]);
      if (x < 0 || x >= n) continue;
      const Int named = values.Decode(s[m.LocalSlot(static_cast<std::uint32_t>(x), entry)]);
      Seen& seen = seen_[r * pcs_ + s[m.PcSlot(i)]];
      seen.recorded = true;
      seen.thread = seen.thread && named >= 0 && named < n;
      if (named < 0 || named >= n || named == i) continue;
      const auto v = static_cast<std::uint32_t>(named);
      seen.any = true;
      seen.at[s[m.PcSlot(v)]] = true;
      seen.same = seen.same && values.Decode(s[m.LocalSlot(v, index)]) == x;
    }
  }
}

void EntryReader::Candidates(const Places& places, std::vector<std::string>& out) const {
  const std::string& j = places.j;
  for (std::size_t r = 0; r < reads_.size(); ++r) {
    const std::string& entry = program_.locals[reads_[r].first].name;
    const std::string& index = program_.locals[reads_[r].second].name;
    for (std::size_t x = 0; x < places.named.size(); ++x) {
      const Seen& seen = seen_[r * pcs_ + places.named[x]];
      if (seen.thread && seen.recorded) {
        out.push_back(fmt::format("pc[self] != {} || {}[{}] >= 0", places.labels[x], entry, index));
      }
      if (!seen.any) continue;
      std::string where;
      bool named_only = true;
      for (std::size_t b = 0; b < pcs_; ++b) {
        if (!seen.at[b]) continue;
        const auto it = std::find(places.named.begin(), places.named.end(), b);
        if (it == places.named.end()) {
          named_only = false;
          break;
        }
        where += fmt::format("{}pc[{}] == {}", where.empty() ? "" : " || ", j,
                             places.labels[static_cast<std::size_t>(it - places.named.begin())]);
      }
      if (!named_only || where.empty()) continue;
      const std::string same = seen.same ? fmt::format(" && {0}[{1}] == {0}", index, j) : "";
      out.push_back(
          fmt::format("forall {0}: pc[self] != {1} || {0} == self || {2}[{3}] != {0} || "
                      "({4}){5}",
                      j, places.labels[x], entry, index, where, same));
    }
  }
}

DifferenceReader::DifferenceReader(const Program& program)
    : program_(program), pcs_(program.statements.size() + 2), live_(drb::LiveToAnyThread(program)) {
  const drb::IdVariables ids = drb::IdHolders(program);
  for (std::uint32_t v = 0; v < program.locals.size(); ++v) {
    const Variable& var = program.locals[v];
    if (var.name.find('[') != std::string::npos || var.type == Type::kBool) continue;
    if (!ids.locals[v]) numbers_.push_back(v);  // a scan's index too (`victim[lv]`)
  }
  seen_.assign(numbers_.size() * numbers_.size() * pcs_, Seen{});
}

void DifferenceReader::Record(const IntModel& m, StateView s) {
  const ValueTable& values = m.values();
  for (std::uint32_t i = 0; i < m.num_threads(); ++i) {
    const std::size_t pc = s[m.PcSlot(i)];
    for (std::size_t x = 0; x < numbers_.size(); ++x) {
      std::optional<Int> a;  // decoded only while some pair at this location is still one
      for (std::size_t y = x + 1; y < numbers_.size(); ++y) {
        Seen& seen = seen_[(x * numbers_.size() + y) * pcs_ + pc];
        if (!seen.one) continue;
        if (!a) a = values.Decode(s[m.LocalSlot(i, numbers_[x])]);
        const Int d = *a - values.Decode(s[m.LocalSlot(i, numbers_[y])]);
        if (d > 1'000'000 || d < -1'000'000) {
          seen.one = false;
          continue;
        }
        const auto diff = static_cast<std::int64_t>(d);
        if (seen.any && seen.difference != diff) seen.one = false;
        seen.any = true;
        seen.difference = diff;
      }
    }
  }
}

void DifferenceReader::Candidates(const Places& places, std::vector<std::string>& out,
                                  bool live) const {
  for (std::size_t x = 0; x < numbers_.size(); ++x) {
    for (std::size_t y = x + 1; y < numbers_.size(); ++y) {
      const std::string& a = program_.locals[numbers_[x]].name;
      const std::string& b = program_.locals[numbers_[y]].name;
      for (std::size_t p = 0; p < places.named.size(); ++p) {
        const std::size_t at = places.named[p];
        const Seen& seen = seen_[(x * numbers_.size() + y) * pcs_ + at];
        if (!seen.any || !seen.one ||
            (live && (!live_[at][numbers_[x]] || !live_[at][numbers_[y]]))) {
          continue;
        }
        const std::int64_t d = seen.difference;
        const std::string offset =
            d == 0 ? "" : fmt::format(" {} {}", d < 0 ? "-" : "+", d < 0 ? -d : d);
        out.push_back(fmt::format("pc[self] != {} || {}[self] == {}[self]{}", places.labels[p], a,
                                  b, offset));
      }
    }
  }
}

}  // namespace druba::predabs
