#include "invariants/code_candidates.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "drb/parser.h"

namespace druba::predabs {
namespace {

// At most this many guards at one location become candidates (the first by their text: a long
// straight run of code keeps every guard before it).
constexpr std::size_t kMaxGuardsPerLocation = 8;

// The guards known to hold, by their text (self's variables as `v[self]`), with what they read.
using Facts = std::map<std::string, std::vector<VariableKey>>;

void AddKey(std::set<VariableKey>& out, VariableKey::Kind kind, std::uint32_t var,
            std::uint32_t size) {
  for (std::uint32_t k = 0; k < std::max<std::uint32_t>(size, 1); ++k) out.insert({kind, var + k});
}

std::vector<VariableKey> Reads(const Expr& e) {
  std::set<VariableKey> out;
  WalkExpr(e, [&](const Expr& x) {
    switch (x.kind) {
      case Expr::Kind::kShared:
        AddKey(out, VariableKey::Kind::kShared, x.var, 1);
        break;
      case Expr::Kind::kLocal:
        AddKey(out, VariableKey::Kind::kLocal, x.var, 1);
        break;
      case Expr::Kind::kSharedElement:
        AddKey(out, VariableKey::Kind::kShared, x.var, static_cast<std::uint32_t>(x.value));
        break;
      case Expr::Kind::kLocalElement:
        AddKey(out, VariableKey::Kind::kLocal, x.var, static_cast<std::uint32_t>(x.value));
        break;
      case Expr::Kind::kPair:
        AddKey(out, VariableKey::Kind::kPair, x.var, 1);
        break;
      default:
        break;
    }
  });
  return {out.begin(), out.end()};
}

void TargetKeys(const Instr& in, std::set<VariableKey>& out) {
  for (const Instr::Target& t : in.targets) {
    const VariableKey::Kind kind = t.pair    ? VariableKey::Kind::kPair
                                   : t.local ? VariableKey::Kind::kLocal
                                             : VariableKey::Kind::kShared;
    AddKey(out, kind, t.var, t.index && t.size > 0 ? t.size : 1);
  }
}

void WritesOf(const std::vector<Instr>& block, std::set<VariableKey>& out) {
  for (const Instr& in : block) {
    TargetKeys(in, out);
    for (const std::vector<Instr>& b : in.blocks) WritesOf(b, out);
  }
}

// Where a step of a block goes (`edge(target, facts)`), and what holds where it falls through
// (none when no path does): a must-analysis over the block's guards.
class BodyWalk {
 public:
  BodyWalk(const Program& p, bool facts) : p_(p), facts_(facts) {}

  template <class Edge>
  std::optional<Facts> Run(const std::vector<Instr>& block, std::optional<Facts> in,
                           const Edge& edge) const {
    for (const Instr& instr : block) {
      if (!in) return in;
      switch (instr.kind) {
        case Instr::Kind::kAssign:
        case Instr::Kind::kAssignEach:
          Kill(instr, *in);
          break;
        case Instr::Kind::kAssume:
          Add(*instr.exprs[0], false, *in);
          break;
        case Instr::Kind::kAssert:  // what it asserts is the property, not a guard
          break;
        case Instr::Kind::kIf: {
          std::optional<Facts> yes = *in;
          std::optional<Facts> no = *in;
          Add(*instr.exprs[0], false, *yes);
          Add(*instr.exprs[0], true, *no);
          yes = Run(instr.blocks[0], std::move(yes), edge);
          no = instr.blocks.size() > 1 ? Run(instr.blocks[1], std::move(no), edge) : no;
          in = Meet(std::move(yes), std::move(no));
          break;
        }
        case Instr::Kind::kChoice: {
          std::optional<Facts> out;
          for (const std::vector<Instr>& b : instr.blocks)
            out = Meet(std::move(out), Run(b, in, edge));
          in = std::move(out);
          break;
        }
        case Instr::Kind::kGoto:
          edge(instr.label, *in);
          in.reset();
          break;
      }
    }
    return in;
  }

  static std::optional<Facts> Meet(std::optional<Facts> a, std::optional<Facts> b) {
    if (!a) return b;
    if (!b) return a;
    std::erase_if(*a, [&](const auto& f) { return !b->contains(f.first); });
    return a;
  }

 private:
  void Add(const Expr& cond, bool negated, Facts& facts) const {
    if (!facts_) return;
    bool havoc = false;
    WalkExpr(cond, [&](const Expr& x) { havoc = havoc || x.kind == Expr::Kind::kHavoc; });
    if (havoc) return;
    const std::string text = drb::ExprToString(p_, cond, "self");
    facts.emplace(negated ? "!(" + text + ")" : text, Reads(cond));
  }
  static void Kill(const Instr& instr, Facts& facts) {
    std::set<VariableKey> written;
    TargetKeys(instr, written);
    std::erase_if(facts, [&](const auto& f) {
      return std::any_of(f.second.begin(), f.second.end(),
                         [&](const VariableKey& k) { return written.contains(k); });
    });
  }

  const Program& p_;
  bool facts_;
};

}  // namespace

bool CodeFlow::Writes(std::uint32_t pc, const VariableKey& v) const {
  return pc < writes.size() && std::binary_search(writes[pc].begin(), writes[pc].end(), v);
}

CodeFlow CodeFlowOf(const Program& program) {
  const std::size_t pcs = program.statements.size() + 2;
  CodeFlow flow;
  flow.successors.resize(pcs);
  flow.predecessors.resize(pcs);
  flow.writes.resize(pcs);
  const ThreadTemplate& tt = program.templates[0];
  const BodyWalk walk(program, false);
  for (std::uint32_t pc = tt.first; pc < tt.first + tt.size; ++pc) {
    const Statement& st = program.statements[pc];
    std::set<std::uint32_t> to;
    const auto edge = [&](std::uint32_t target, const Facts&) { to.insert(target); };
    if (walk.Run(st.body, Facts{}, edge)) to.insert(st.next);
    flow.successors[pc].assign(to.begin(), to.end());
    for (const std::uint32_t t : to) {
      if (t < pcs) flow.predecessors[t].push_back(pc);
    }
    std::set<VariableKey> written;
    WritesOf(st.body, written);
    flow.writes[pc].assign(written.begin(), written.end());
  }
  return flow;
}

void GuardCandidates(const Program& program, const std::vector<std::uint32_t>& named,
                     const std::vector<std::string>& labels, std::vector<std::string>& out) {
  const ThreadTemplate& tt = program.templates[0];
  const std::size_t pcs = program.statements.size() + 2;
  // What holds on entry at each location: none yet (no way in seen), or the guards.
  std::vector<std::optional<Facts>> at(pcs);
  at[tt.first] = Facts{};
  const BodyWalk walk(program, true);
  std::vector<std::uint32_t> work{tt.first};
  // Each location's set only shrinks once it has one, so this ends; the bound on rounds is
  // a guard against a mistake, not a limit that matters.
  for (std::size_t steps = 0; !work.empty() && steps < 64 * pcs; ++steps) {
    const std::uint32_t pc = work.back();
    work.pop_back();
    if (pc < tt.first || pc >= tt.first + tt.size || !at[pc]) continue;
    const Statement& st = program.statements[pc];
    const auto edge = [&](std::uint32_t target, const Facts& facts) {
      if (target >= pcs || target == program.error_pc) return;
      std::optional<Facts> merged = at[target] ? BodyWalk::Meet(at[target], facts) : facts;
      if (!at[target] || merged->size() != at[target]->size()) {
        at[target] = std::move(merged);
        work.push_back(target);
      }
    };
    if (std::optional<Facts> end = walk.Run(st.body, at[pc], edge)) edge(st.next, *end);
  }
  for (std::size_t k = 0; k < named.size(); ++k) {
    const std::optional<Facts>& facts = at[named[k]];
    if (!facts) continue;
    std::size_t taken = 0;
    for (const auto& [text, reads] : *facts) {
      if (reads.empty() || ++taken > kMaxGuardsPerLocation) continue;
      out.push_back("pc[self] != " + labels[k] + " || " + text);
    }
  }
}

}  // namespace druba::predabs
