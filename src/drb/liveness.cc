#include "drb/liveness.h"

#include <algorithm>

#include "drb/ordered.h"

namespace druba::drb {
namespace {

// The thread's own locals that `e` reads (the index of another thread's entry included).
void Reads(const Expr& e, std::vector<bool>& out) {
  if (e.kind == Expr::Kind::kLocal && e.args.empty()) out[e.var] = true;
  if (e.kind == Expr::Kind::kLocalElement) {
    const auto size = static_cast<std::uint32_t>(e.value);
    for (std::uint32_t v = e.var; v < e.var + size && v < out.size(); ++v) out[v] = true;
  }
  for (const ExprPtr& a : e.args) Reads(*a, out);
}

void Body(const std::vector<Instr>& body, std::vector<bool>& reads,
          std::vector<std::uint32_t>& gotos) {
  for (const Instr& op : body) {
    for (const ExprPtr& e : op.exprs) Reads(*e, reads);
    for (const Instr::Target& t : op.targets) {
      if (t.index) Reads(*t.index, reads);
      if (t.column) Reads(*t.column, reads);
    }
    if (op.kind == Instr::Kind::kGoto) gotos.push_back(op.label);
    for (const std::vector<Instr>& block : op.blocks) Body(block, reads, gotos);
  }
}

}  // namespace

std::vector<std::vector<bool>> LiveLocals(const Program& program) {
  const std::size_t locals = program.locals.size();
  const std::size_t pcs =
      std::max<std::size_t>(program.statements.size() + program.templates.size(),
                            program.error_pc) +
      1;
  std::vector<std::vector<bool>> reads(pcs, std::vector<bool>(locals, false));
  std::vector<std::vector<bool>> kills(pcs, std::vector<bool>(locals, false));
  std::vector<std::vector<std::uint32_t>> next(pcs);
  for (std::uint32_t pc = 0; pc < program.statements.size(); ++pc) {
    const Statement& s = program.statements[pc];
    Body(s.body, reads[pc], next[pc]);
    next[pc].push_back(s.next);
    for (const Instr& op : s.body) {
      if (op.kind != Instr::Kind::kAssign) continue;
      for (const Instr::Target& t : op.targets) {
        if (t.local && !t.index && t.var < locals) kills[pc][t.var] = true;
      }
    }
  }
  std::vector<std::vector<bool>> live(pcs, std::vector<bool>(locals, false));
  for (bool changed = true; changed;) {
    changed = false;
    for (std::uint32_t pc = 0; pc < program.statements.size(); ++pc) {
      for (std::size_t v = 0; v < locals; ++v) {
        bool in = reads[pc][v];
        for (const std::uint32_t to : next[pc]) {
          in = in || (!kills[pc][v] && to < pcs && live[to][v]);
        }
        if (in && !live[pc][v]) {
          live[pc][v] = true;
          changed = true;
        }
      }
    }
  }
  return live;
}

std::vector<std::vector<bool>> LiveToAnyThread(const Program& program) {
  std::vector<std::vector<bool>> live = LiveLocals(program);
  std::vector<bool> others(program.locals.size(), false);
  for (const Statement& s : program.statements) OthersLocals(s.body, others);
  for (std::vector<bool>& at : live) {
    for (std::size_t v = 0; v < at.size() && v < others.size(); ++v) at[v] = at[v] || others[v];
  }
  return live;
}

}  // namespace druba::drb
