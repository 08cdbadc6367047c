#include "check/cpds_check.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <span>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "common/diagnostics.h"

namespace druba::check {
namespace {

using cpds::Rule;
using cpds::RuleKind;
using Word = std::uint32_t;
using Config = std::vector<Word>;    // the shared state, then each thread's K stack slots
constexpr Word kNone = 0xFFFFFFFFU;  // an empty slot, or the bottom of a stack

// A number of the certificate: -1 is an empty slot or the bottom, others must fit a Word.
Word WordOf(std::int64_t v, const JsonValue& row) {
  if (v == -1) return kNone;
  if (v < 0 || v >= kNone) throw InputError(row.where, "expected numbers from -1 to 2^32 - 2");
  return static_cast<Word>(v);
}

std::string ConfigText(const Config& s) {
  std::string out = "[";
  for (std::size_t i = 0; i < s.size(); ++i) {
    out += fmt::format("{}{}", i == 0 ? "" : ", ", s[i] == kNone ? -1LL : s[i]);
  }
  return out + "]";
}

// The certificate's claims, read.
struct Claims {
  std::uint32_t k = 1;
  std::uint32_t n = 0;
  absl::flat_hash_set<Config> states;
  std::vector<Config> listed;  // the same, in the certificate's order: the checks walk it, so that
                               // the example a failure names is the same at every run
  // Top(t, g, x) -> the ys; Deep(t, u) -> the vs.
  absl::flat_hash_map<std::array<Word, 3>, absl::flat_hash_set<Word>> top;
  absl::flat_hash_map<std::array<Word, 2>, absl::flat_hash_set<Word>> deep;
  absl::flat_hash_set<std::array<Word, 3>> visible;  // (t, g, top of t) of some state

  bool HasTop(Word t, Word g, Word x, Word y) const {
    const auto it = top.find(std::array<Word, 3>{t, g, x});
    return it != top.end() && it->second.contains(y);
  }
  bool HasDeep(Word t, Word u, Word v) const {
    const auto it = deep.find(std::array<Word, 2>{t, u});
    return it != deep.end() && it->second.contains(v);
  }
  const Word* Slots(const Config& s, std::uint32_t t) const {
    return s.data() + 1 + std::size_t{t} * k;
  }
};

Claims Read(const JsonValue& doc, std::uint32_t n) {
  Claims c;
  c.n = n;
  c.k = doc.At("k").AsUInt();
  if (c.k == 0 || c.k > 64) throw InputError(doc.At("k").where, "k must be between 1 and 64");
  for (const JsonValue& row : doc.At("abstract_states").Items()) {
    const std::span<const std::int64_t> words = row.Integers();
    if (words.size() != 1 + std::size_t{n} * c.k) {
      throw InputError(row.where, "an abstract state must have 1 + threads * k numbers");
    }
    Config s;
    s.reserve(words.size());
    for (const std::int64_t v : words) s.push_back(WordOf(v, row));
    for (std::uint32_t t = 0; t < n; ++t) {
      if (c.Slots(s, t)[0] != kNone) c.visible.insert({t, s[0], c.Slots(s, t)[0]});
    }
    if (c.states.insert(s).second) c.listed.push_back(std::move(s));
  }
  for (const JsonValue& row : doc.At("below_top").Items()) {
    const std::span<const std::int64_t> f = row.Integers();
    if (f.size() != 4) throw InputError(row.where, "a below_top row is [t, g, x, y]");
    if (WordOf(f[0], row) >= n) throw InputError(row.where, "no such thread");
    c.top[{WordOf(f[0], row), WordOf(f[1], row), WordOf(f[2], row)}].insert(WordOf(f[3], row));
  }
  for (const JsonValue& row : doc.At("below_deep").Items()) {
    const std::span<const std::int64_t> f = row.Integers();
    if (f.size() != 3) throw InputError(row.where, "a below_deep row is [t, u, v]");
    if (WordOf(f[0], row) >= n) throw InputError(row.where, "no such thread");
    c.deep[{WordOf(f[0], row), WordOf(f[1], row)}].insert(WordOf(f[2], row));
  }
  return c;
}

Config Initial(const Claims& c, const cpds::InitialState& init) {
  Config s(1 + std::size_t{c.n} * c.k, kNone);
  s[0] = init.shared;
  for (std::uint32_t t = 0; t < c.n; ++t) {
    const cpds::Stack& w = init.stacks[t];  // bottom to top
    for (std::uint32_t j = 0; j < c.k && j < w.size(); ++j)
      s[1 + t * c.k + j] = w[w.size() - 1 - j];
  }
  return s;
}

// Each thread's rules by their left-hand side (shared state, top symbol).
class Rules {
 public:
  explicit Rules(const cpds::Cpds& cpds) : by_lhs_(cpds.threads.size()) {
    for (std::size_t t = 0; t < cpds.threads.size(); ++t) {
      for (const Rule& r : cpds.threads[t].rules) by_lhs_[t][{r.shared, r.top}].push_back(&r);
    }
  }
  const std::vector<const Rule*>& At(std::uint32_t t, Word g, Word x) const {
    const auto it = by_lhs_[t].find(std::array<Word, 2>{g, x});
    return it == by_lhs_[t].end() ? none_ : it->second;
  }
  // The rules of thread t enabled in s (none when its stack is empty).
  const std::vector<const Rule*>& Enabled(const Config& s, const Claims& c, std::uint32_t t) const {
    const Word top = c.Slots(s, t)[0];
    return top == kNone ? none_ : At(t, s[0], top);
  }

 private:
  std::vector<absl::flat_hash_map<std::array<Word, 2>, std::vector<const Rule*>>> by_lhs_;
  std::vector<const Rule*> none_;
};

bool MatchesTarget(const cpds::TargetPattern& p, const Config& s, const Claims& c) {
  if (p.shared && *p.shared != s[0]) return false;
  for (std::uint32_t t = 0; t < c.n && t < p.stacks.size(); ++t) {
    if (!p.stacks[t]) continue;
    const cpds::Stack& want = *p.stacks[t];  // the top symbols, bottom to top
    const Word* slots = c.Slots(s, t);
    if (want.empty() && slots[0] != kNone) return false;
    // Symbols deeper than the certificate's K are not in its states: the stack may hold them, so
    // a state whose K slots match is a target (a target deeper than K was read as never met).
    for (std::size_t i = 0; i < want.size() && i < c.k; ++i) {
      if (slots[i] != want[want.size() - 1 - i]) return false;
    }
  }
  return true;
}

bool Deadlocked(const Rules& rules, const Config& s, const Claims& c) {
  bool busy = false;
  for (std::uint32_t t = 0; t < c.n; ++t) {
    if (c.Slots(s, t)[0] == kNone) continue;
    busy = true;
    if (!rules.Enabled(s, c, t).empty()) return false;
  }
  return busy;
}

// Every abstract successor of `s` under rule `r` of thread t (top-K: pushes and overwrites are
// exact; a pop fills the freed slot from the relation).
void Post(const Rule& r, const Config& s, const Claims& c, std::uint32_t t,
          const std::function<void(const Config&)>& yield) {
  Config out = s;
  out[0] = r.new_shared;
  const Word* in = c.Slots(s, t);
  Word* slots = out.data() + 1 + std::size_t{t} * c.k;
  if (r.kind == RuleKind::kOverwrite) {
    slots[0] = r.new_top;
    return yield(out);
  }
  if (r.kind == RuleKind::kPush) {
    for (std::uint32_t j = c.k - 1; j >= 2; --j) slots[j] = in[j - 1];
    slots[0] = r.new_top;
    if (c.k > 1) slots[1] = r.below;
    return yield(out);
  }
  for (std::uint32_t j = 0; j + 1 < c.k; ++j) slots[j] = in[j + 1];
  const Word last = in[c.k - 1];
  if (last == kNone) {
    slots[c.k - 1] = kNone;
    return yield(out);
  }
  const auto below = c.k == 1 ? c.top.find(std::array<Word, 3>{t, s[0], last}) : c.top.end();
  const auto deep = c.k == 1 ? c.deep.end() : c.deep.find(std::array<Word, 2>{t, last});
  const absl::flat_hash_set<Word>* ys = nullptr;
  if (below != c.top.end()) ys = &below->second;
  if (deep != c.deep.end()) ys = &deep->second;
  if (ys == nullptr) return;
  for (const Word y : *ys) {
    slots[c.k - 1] = y;
    yield(out);
  }
}

// The facts the relation's rules require (below.h), each only where the rule's conclusion is
// visible: "" when the certificate has it, else the missing fact and the rule that needs it.
struct Need {
  const Claims& c;

  std::string Top(Word t, Word g, Word x, Word y, const char* why) const {
    if (!c.visible.contains(std::array<Word, 3>{t, g, x}) || c.HasTop(t, g, x, y)) return "";
    return fmt::format("missing below_top [{}, {}, {}, {}] ({})", t, g, x, y == kNone ? -1LL : y,
                       why);
  }
  std::string Deep(Word t, Word u, Word v, const char* why) const {
    if (c.HasDeep(t, u, v)) return "";
    return fmt::format("missing below_deep [{}, {}, {}] ({})", t, u, v == kNone ? -1LL : v, why);
  }
};

// (I): the initial stacks' facts.
std::string InitialFacts(const cpds::InitialState& init, const Need& need) {
  for (std::uint32_t t = 0; t < need.c.n; ++t) {
    const cpds::Stack& w = init.stacks[t];
    for (std::size_t j = 0; j < w.size(); ++j) {
      const Word under = j == 0 ? kNone : w[j - 1];
      std::string miss = j + 1 == w.size()
                             ? need.Top(t, init.shared, w[j], under, "the initial stack")
                             : need.Deep(t, w[j], under, "the initial stack");
      if (!miss.empty()) return miss;
    }
  }
  return "";
}

// (O), (P), (Q): a thread's own overwrite, push and pop from each fact (t, g, x, y).
std::string OwnStepFacts(const Rules& rules, const Need& need) {
  const Claims& c = need.c;
  // In sorted order, so that the fact a failure names is the same at every run.
  std::vector<std::array<Word, 4>> facts;
  for (const auto& [key, ys] : c.top) {
    for (const Word y : ys) facts.push_back({key[0], key[1], key[2], y});
  }
  std::sort(facts.begin(), facts.end());
  for (const auto& [t, g, x, y] : facts) {
    for (const Rule* rule : rules.At(t, g, x)) {
      const Rule& r = *rule;
      std::string miss;
      if (r.kind == RuleKind::kOverwrite)
        miss = need.Top(t, r.new_shared, r.new_top, y, "overwrite");
      if (r.kind == RuleKind::kPush) {
        miss = need.Top(t, r.new_shared, r.new_top, r.below, "push");
        if (miss.empty()) miss = need.Deep(t, r.below, y, "push");
      }
      if (r.kind == RuleKind::kPop && y != kNone) {
        const auto it = c.deep.find(std::array<Word, 2>{t, y});
        if (it != c.deep.end()) {
          for (const Word z : it->second) {
            if (miss.empty()) miss = need.Top(t, r.new_shared, y, z, "pop");
          }
        }
      }
      if (!miss.empty()) return miss;
    }
  }
  return "";
}

// (E): another thread's step changes the shared state under each listed state's top symbols.
std::string OtherStepFacts(const Rules& rules, const Need& need) {
  const Claims& c = need.c;
  for (const Config& s : c.listed) {
    for (std::uint32_t t = 0; t < c.n; ++t) {
      const Word x = c.Slots(s, t)[0];
      const auto it = c.top.find(std::array<Word, 3>{t, s[0], x});
      if (x == kNone || it == c.top.end()) continue;
      for (std::uint32_t other = 0; other < c.n; ++other) {
        if (other == t) continue;
        for (const Rule* r : rules.Enabled(s, c, other)) {
          for (const Word y : it->second) {
            std::string miss = need.Top(t, r->new_shared, x, y, "another thread's step");
            if (!miss.empty()) return miss;
          }
        }
      }
    }
  }
  return "";
}

// The relation's rules: the first missing fact, or "".
std::string CheckRelation(const Rules& rules, const cpds::InitialState& init, const Claims& c) {
  const Need need{c};
  std::string miss = InitialFacts(init, need);
  if (miss.empty()) miss = OwnStepFacts(rules, need);
  if (miss.empty()) miss = OtherStepFacts(rules, need);
  return miss;
}

// The claims of a certificate read, one condition after another (see CheckCpdsCertificate).
template <class Fail>
CheckResult CheckClaims(const JsonValue& doc, const std::string& digest, const cpds::Cpds& cpds,
                        const cpds::InitialState& init,
                        const std::optional<cpds::TargetPattern>& target, LimitWatch* limits,
                        CheckResult& r, const Fail& fail) {
  ExpectSchema(doc, "cpds top-k",
               {"k", "deadlock", "target", "abstract_states", "below_top", "below_deep"});
  const auto n = static_cast<std::uint32_t>(cpds.threads.size());
  if (doc.At("threads").AsUInt() != n) {
    throw InputError(doc.At("threads").where, "the certificate is for another thread count");
  }
  const Claims c = Read(doc, n);
  if (doc.At("digest").AsString() != digest) {
    return fail("digest", "the model, its initial state or its target is not the one certified (" +
                              doc.At("digest").AsString() + ", now " + digest + ")");
  }
  r.passed.emplace_back("digest");
  const bool deadlock = doc.At("deadlock").AsBool();
  if (doc.At("target").AsBool() != target.has_value()) {
    return fail("property", "the certificate was written with a different target (or none)");
  }
  const Rules rules(cpds);
  const Config initial = Initial(c, init);
  if (!c.states.contains(initial))
    return fail("initial", ConfigText(initial) + " is not in the set");
  r.passed.push_back(fmt::format("initial ({} threads)", n));
  for (const Config& s : c.listed) {
    PollLimits(limits, false);
    if (target && MatchesTarget(*target, s, c))
      return fail("property", ConfigText(s) + " is a target");
    if (deadlock && Deadlocked(rules, s, c))
      return fail("property", ConfigText(s) + " is deadlocked");
  }
  r.passed.emplace_back(deadlock ? "property (target, deadlock)" : "property (target)");
  if (std::string miss = CheckRelation(rules, init, c); !miss.empty()) {
    return fail("relation", miss);
  }
  r.passed.emplace_back("relation");
  for (const Config& s : c.listed) {
    PollLimits(limits, false);
    for (std::uint32_t t = 0; t < n; ++t) {
      for (const Rule* enabled : rules.Enabled(s, c, t)) {
        const Rule& rule = *enabled;
        std::string escape;
        Post(rule, s, c, t, [&](const Config& to) {
          if (escape.empty() && !c.states.contains(to)) {
            escape = fmt::format("{} -> {} under thread {}'s rule at line {}", ConfigText(s),
                                 ConfigText(to), t, rule.line);
          }
        });
        if (!escape.empty()) return fail("closure", escape);
      }
    }
  }
  r.passed.emplace_back("closure");
  r.valid = true;
  return std::move(r);
}

}  // namespace

CheckResult CheckCpdsCertificate(const JsonValue& certificate, const std::string& digest,
                                 const cpds::Cpds& cpds, const cpds::InitialState& init,
                                 const std::optional<cpds::TargetPattern>& target,
                                 LimitWatch* limits) {
  const JsonValue& doc = certificate;
  CheckResult r;
  const auto fail = [&](std::string what, std::string example) {
    return Invalid(std::move(r), std::move(what), std::move(example));
  };
  try {
    PollLimits(limits);  // a signal or a limit before the first condition: nothing is decided
    return CheckClaims(doc, digest, cpds, init, target, limits, r, fail);
  } catch (const CheckStopped& stopped) {
    r.stopped = stopped.reason;
    return r;
  }
}

}  // namespace druba::check
