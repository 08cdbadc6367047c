// The .drb parser, threads: thread templates, labelled statements, blocks and the operations
// inside them (assignments, assume, assert, if, while, choose, atomic, goto).
#include "drb/parser_internal.h"

#include <algorithm>
#include <functional>

namespace druba::drb::internal {

// ---- threads ----

void Parser::ParseThread() {
  const Token& kw = Expect("thread");
  ThreadTemplate t;
  t.where = Where(kw);
  t.name = ExpectIdent("a thread name").text;
  for (const ThreadTemplate& other : program_.templates) {
    if (other.name == t.name) Fail(kw, "thread '" + t.name + "' is declared twice");
  }
  if (Accept("*")) {
    t.count = ExpectSmall("a thread count", 1, 1000);
    t.every_count = Accept("..");
  }
  const bool family =
      t.every_count || (!program_.templates.empty() && program_.templates.front().every_count);
  if (family && !program_.templates.empty()) {
    Fail(kw, "a thread template for every count ('* N..') must be the program's only one");
  }
  t.first = static_cast<std::uint32_t>(program_.statements.size());
  const auto template_index = static_cast<std::uint32_t>(program_.templates.size());
  Expect("{");
  labels_.clear();
  pending_gotos_.clear();
  block_exits_ = {kEndMarker};
  while (!Accept("}")) {
    if (AtEnd()) Fail(Cur(), "the thread's '{' is not closed");
    ParseStatement(template_index);
  }
  t.size = static_cast<std::uint32_t>(program_.statements.size()) - t.first;
  if (t.size == 0) Fail(kw, "thread '" + t.name + "' has no statement");
  for (std::uint32_t i = t.first; i < t.first + t.size; ++i) {
    // The last one's is patched in Finish(), unless it goes back to a loop's test.
    const auto fixed = fixed_next_.find(i);
    program_.statements[i].next = fixed != fixed_next_.end() ? fixed->second : i + 1;
    for (Instr& op : program_.statements[i].body) ResolveGotos(op);
  }
  template_labels_.push_back(labels_);
  program_.templates.push_back(std::move(t));
}

void Parser::ResolveGotos(Instr& op) {
  if (op.kind == Instr::Kind::kGoto && op.label >= kPendingBase) {
    const PendingGoto& p = pending_gotos_[op.label - kPendingBase];
    if (p.name == "end") {
      op.label = kEndMarker;
    } else {
      const auto it = labels_.find(p.name);
      if (it == labels_.end()) {
        throw InputError(p.where, "no statement of this thread has the label '" + p.name + "'");
      }
      op.label = it->second;
    }
  }
  for (auto& block : op.blocks) {
    for (Instr& inner : block) ResolveGotos(inner);
  }
}

bool Parser::ParseStatement(std::uint32_t template_index) {
  Statement s;
  s.thread_template = template_index;
  const Token& first = Cur();
  s.where = Where(first);
  if ((Cur().kind == Token::Kind::kIdent || Cur().kind == Token::Kind::kNumber) && PeekAt(1, ":")) {
    s.label = Cur().text;
    if (Cur().kind == Token::Kind::kIdent && IsKeyword(s.label)) {
      Fail(Cur(), "'" + s.label + "' is a keyword, not a label");
    }
    if (s.label.starts_with("@")) {
      Fail(Cur(), "'" + s.label + "' names the unlabelled statement on line " + s.label.substr(1) +
                      ": a label is a name or a number");
    }
    if (labels_.contains(s.label)) Fail(Cur(), "the label '" + s.label + "' is used twice");
    pos_ += 2;
  } else {
    s.label = "@" + std::to_string(first.line);
    if (labels_.contains(s.label)) s.label += ":" + std::to_string(first.column);
  }
  const auto index = static_cast<std::uint32_t>(program_.statements.size());
  labels_[s.label] = index;
  const std::size_t text_begin = Cur().begin;
  if (Peek("if") && StructuredIfAhead()) {
    ParseStructuredIf(template_index, std::move(s), text_begin);
    return true;
  }
  if (Accept("atomic")) {
    s.body = ParseBlock();
    Accept(";");
  } else if (Peek("while")) {
    if (PeekLoopWithBody()) {  // the test goes into the body, or out (patched after it)
      PushTest(std::move(s), "do", text_begin);
      ParseLoopBody(template_index, index);
      return true;
    }
    const Token& kw = tokens_[pos_++];
    Instr op;
    op.kind = Instr::Kind::kIf;
    op.where = Where(kw);
    op.exprs.push_back(ParseBoolExpr());
    Expect("do");
    op.blocks.resize(2);
    Instr stay;  // a busy wait
    stay.kind = Instr::Kind::kGoto;
    stay.label = index;
    op.blocks[0].push_back(std::move(stay));
    s.body.push_back(std::move(op));
    Expect(";");
  } else {
    s.body.push_back(ParseInstr());
    Expect(";");
  }
  const std::size_t text_end = tokens_[pos_ - 1].end;
  s.text = CollapseSpace(text_.substr(text_begin, text_end - text_begin));
  program_.statements.push_back(std::move(s));
  return false;
}

void Parser::ParseStatementBlock(std::uint32_t template_index, std::uint32_t exit) {
  const Nest nest(*this);
  const Token& open = Expect("{");
  block_exits_.push_back(exit);
  std::uint32_t last = kEndMarker;
  bool last_compound = false;
  while (!Accept("}")) {
    if (AtEnd()) Fail(open, "the '{' is not closed");
    last = static_cast<std::uint32_t>(program_.statements.size());
    last_compound = ParseStatement(template_index);
  }
  block_exits_.pop_back();
  if (last == kEndMarker) Fail(open, "a block of statements needs a statement");
  if (!last_compound) fixed_next_[last] = exit;  // a loop or an if routes its own way out
}

std::uint32_t Parser::WayOut() const {
  return Peek("}") ? block_exits_.back() : static_cast<std::uint32_t>(program_.statements.size());
}

void Parser::ParseLoopBody(std::uint32_t template_index, std::uint32_t test) {
  if (Peek("{") && PeekAt(1, "}")) {
    Fail(Cur(), "a loop body needs a statement (a busy wait is `while c do;`)");
  }
  ParseStatementBlock(template_index, test);  // the body's end goes back to the test
  program_.statements[test].body[0].blocks[1][0].label = WayOut();
  Accept(";");
}

bool Parser::StructuredIfAhead() const {
  // if COND then { ... } [else { ... }]: a block whose statements start with a label or `while`.
  std::size_t i = pos_;
  while (i < tokens_.size() && tokens_[i].kind != Token::Kind::kEnd && tokens_[i].text != "then") {
    ++i;
  }
  const auto holds_statements = [&](std::size_t at) {  // at '{'
    int depth = 0;
    for (std::size_t j = at; j < tokens_.size() && tokens_[j].kind != Token::Kind::kEnd; ++j) {
      const std::string& t = tokens_[j].text;
      const bool punct = tokens_[j].kind == Token::Kind::kPunct;
      if (punct && t == "{") ++depth;
      if (punct && t == "}" && --depth == 0) return false;
      const bool starts = depth == 1 && j > at && tokens_[j - 1].kind == Token::Kind::kPunct &&
                          (tokens_[j - 1].text == "{" || tokens_[j - 1].text == ";");
      if (!starts) continue;
      if (tokens_[j].kind == Token::Kind::kIdent && t == "while") return true;
      if ((tokens_[j].kind == Token::Kind::kIdent || tokens_[j].kind == Token::Kind::kNumber) &&
          j + 1 < tokens_.size() && tokens_[j + 1].text == ":") {
        return true;
      }
    }
    return false;
  };
  if (i + 1 >= tokens_.size() || tokens_[i + 1].text != "{") return false;
  if (holds_statements(i + 1)) return true;
  int depth = 0;  // past the then-block, to its else-block
  std::size_t j = i + 1;
  for (; j < tokens_.size() && tokens_[j].kind != Token::Kind::kEnd; ++j) {
    if (tokens_[j].text == "{") ++depth;
    if (tokens_[j].text == "}" && --depth == 0) break;
  }
  return j + 2 < tokens_.size() && tokens_[j + 1].text == "else" && tokens_[j + 2].text == "{" &&
         holds_statements(j + 2);
}

bool Parser::PeekLoopWithBody() const {
  // while COND do { : the condition has no braces and no `do`.
  std::size_t i = pos_;
  while (i < tokens_.size() && tokens_[i].kind != Token::Kind::kEnd && tokens_[i].text != "do") {
    ++i;
  }
  return i + 1 < tokens_.size() && tokens_[i + 1].text == "{";
}

std::uint32_t Parser::PushTest(Statement s, const char* word, std::size_t text_begin) {
  const Token& kw = tokens_[pos_++];
  Instr op;  // if COND then (on into the block) else goto OUT (patched by the caller)
  op.kind = Instr::Kind::kIf;
  op.where = Where(kw);
  op.exprs.push_back(ParseBoolExpr());
  Expect(word);
  op.blocks.resize(2);
  Instr out;
  out.kind = Instr::Kind::kGoto;
  op.blocks[1].push_back(std::move(out));
  s.body.push_back(std::move(op));
  s.text = CollapseSpace(text_.substr(text_begin, Cur().begin - text_begin));
  program_.statements.push_back(std::move(s));
  return static_cast<std::uint32_t>(program_.statements.size() - 1);
}

void Parser::ParseStructuredIf(std::uint32_t template_index, Statement s, std::size_t text_begin) {
  const std::uint32_t test = PushTest(std::move(s), "then", text_begin);
  // Both blocks end past the if, which is known only at its end: a placeholder until then.
  const std::uint32_t after = kAfterBase + static_cast<std::uint32_t>(ifs_++);
  ParseStatementBlock(template_index, after);
  std::uint32_t otherwise = after;
  if (Accept("else")) {
    if (!Peek("{")) Fail(Cur(), "an if whose blocks hold statements needs `else { ... }`");
    otherwise = static_cast<std::uint32_t>(program_.statements.size());
    ParseStatementBlock(template_index, after);
  }
  program_.statements[test].body[0].blocks[1][0].label = otherwise;
  const std::uint32_t target = WayOut();
  std::function<void(Instr&)> patch = [&](Instr& instr) {
    if (instr.kind == Instr::Kind::kGoto && instr.label == after) instr.label = target;
    for (auto& block : instr.blocks) {
      for (Instr& inner : block) patch(inner);
    }
  };
  for (std::size_t i = test; i < program_.statements.size(); ++i) {
    for (Instr& instr : program_.statements[i].body) patch(instr);
  }
  for (auto& [statement, next] : fixed_next_) {
    if (next == after) next = target;
  }
  Accept(";");
}

std::string Parser::CollapseSpace(std::string_view in) {
  std::string out;
  bool space = false;
  for (const char c : in) {
    if (std::isspace(static_cast<unsigned char>(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  if (!out.empty() && out.back() == ';') out.pop_back();
  return out;
}

std::vector<Instr> Parser::ParseBlock() {
  Expect("{");
  std::vector<Instr> ops;
  while (!Accept("}")) {
    if (AtEnd()) Fail(Cur(), "the '{' is not closed");
    ops.push_back(ParseInstr());
    if (!Peek("}")) Expect(";");
  }
  return ops;
}

std::vector<Instr> Parser::ParseBranch() {
  if (Peek("{")) return ParseBlock();
  std::vector<Instr> ops;
  ops.push_back(ParseInstr());
  return ops;
}

Instr Parser::ParseInstr() {
  const Nest nest(*this);
  const Token& t = Cur();
  Instr op;
  op.where = Where(t);
  if (ParseSugar(t, op)) {
    return op;
  }
  if (Accept("skip")) {
    op.kind = Instr::Kind::kAssume;
    op.exprs.push_back(MakeBool(true, op.where));
  } else if (Accept("assume")) {
    op.kind = Instr::Kind::kAssume;
    op.exprs.push_back(ParseBoolExpr());
  } else if (Accept("assert")) {
    op.kind = Instr::Kind::kAssert;
    op.exprs.push_back(ParseBoolExpr());
  } else if (Accept("goto")) {
    op.kind = Instr::Kind::kGoto;
    const Token& label = Cur();
    if (label.kind != Token::Kind::kIdent && label.kind != Token::Kind::kNumber) {
      Fail(label, "expected a label" + Found());
    }
    ++pos_;
    op.label = kPendingBase + static_cast<std::uint32_t>(pending_gotos_.size());
    pending_gotos_.push_back({label.text, Where(label)});
  } else if (Accept("end")) {
    op.kind = Instr::Kind::kGoto;
    op.label = kPendingBase + static_cast<std::uint32_t>(pending_gotos_.size());
    pending_gotos_.push_back({"end", op.where});
  } else if (Accept("if")) {
    op.kind = Instr::Kind::kIf;
    op.exprs.push_back(ParseBoolExpr());
    Expect("then");
    op.blocks.push_back(ParseBranch());
    op.blocks.emplace_back();
    if (Accept("else")) op.blocks.back() = ParseBranch();
  } else if (Accept("choose")) {
    op.kind = Instr::Kind::kChoice;
    op.blocks.push_back(ParseBlock());
    if (!Peek("or")) Fail(Cur(), "'choose' needs at least two blocks joined by 'or'");
    while (Accept("or")) op.blocks.push_back(ParseBlock());
  } else if (Peek("forall")) {
    ParseAssignEach(op);
  } else if (t.kind == Token::Kind::kIdent && !IsKeyword(t.text)) {
    ParseAssignments(op);
  } else if (t.kind == Token::Kind::kIdent && t.text == "atomic") {
    Fail(t,
         "expected an instruction but found 'atomic': this is already inside one statement, "
         "whose instructions all run in one step; write them without 'atomic', as "
         "`{ ...; ... }`");
  } else if (t.kind == Token::Kind::kIdent && t.text == "while") {
    Fail(t,
         "expected an instruction but found 'while': a loop is made of statements, and this is "
         "inside one statement, which runs in one step; wait with `assume COND` (or `await "
         "COND`), or go back with `if COND then goto LABEL`");
  } else {
    Fail(t, "expected a statement" + Found());
  }
  return op;
}

bool Parser::ParseSugar(const Token& t, Instr& op) {
  if (t.kind != Token::Kind::kIdent) return false;
  if (t.text == "await" && !PeekAt(1, ":=") && !PeekAt(1, ",")) {
    ++pos_;
    op.kind = Instr::Kind::kAssume;
    op.exprs.push_back(ParseBoolExpr());
    return true;
  }
  if ((t.text != "lock" && t.text != "unlock") || !PeekAt(1, "(")) return false;
  pos_ += 2;
  // x is a shared Boolean variable or an element of a shared Boolean array (a lock per account,
  // per fork, per bucket: `lock(lk[i])`).
  const std::size_t at = pos_;
  const Token& name = ExpectIdent("a shared Boolean variable");
  const auto array = FindArray(name.text);
  const auto ref = array ? std::nullopt : FindVar(name.text);
  const bool boolean = array
                           ? !array->local && program_.shared[array->first].type == Type::kBool
                           : ref && !ref->local && program_.shared[ref->index].type == Type::kBool;
  if (!boolean) {
    Fail(name, t.text +
                   "(x) needs a shared Boolean variable x (declared `shared bool x = false;`) or "
                   "an element of a shared Boolean array (`shared bool x[N];`, `" +
                   t.text + "(x[i])`)");
  }
  // The element is read (is it free?) and written: its tokens are read twice, once as each.
  ExprPtr read = array ? ArrayElement(name, *array) : CloneShared(ref->index, Where(name));
  pos_ = at + 1;
  Instr set;
  set.kind = Instr::Kind::kAssign;
  set.where = Where(t);
  set.targets.push_back(ParseTarget(name, set));
  Expect(")");
  const auto value = [&](bool v) { return MakeBool(v, Where(t)); };
  set.exprs.push_back(value(t.text == "lock"));
  if (t.text == "unlock") {
    op = std::move(set);
    return true;
  }
  // lock(x): one atomic step that waits until x is false and sets it.
  op.kind = Instr::Kind::kIf;  // if !x then { x := true } else { assume false }
  auto free = std::make_unique<Expr>();
  free->kind = Expr::Kind::kUnary;
  free->op = Expr::Op::kNot;
  free->sort = Sort::kBool;
  free->where = Where(name);
  read->sort = Sort::kBool;
  free->height = read->height + 1;
  free->args.push_back(std::move(read));
  op.exprs.push_back(std::move(free));
  op.blocks.resize(2);
  op.blocks[0].push_back(std::move(set));
  Instr block;
  block.kind = Instr::Kind::kAssume;
  block.where = Where(t);
  block.exprs.push_back(value(false));
  op.blocks[1].push_back(std::move(block));
  return true;
}

Instr::Target Parser::ParseTarget(const Token& name, const Instr& op) {
  Instr::Target target;
  std::uint32_t span = 1;  // the variables the target may write, from target.var
  if (const auto pair = FindPairArray(name.text)) {
    ExprPtr entry = PairEntry(name, *pair);
    target.pair = true;
    target.var = *pair;
    target.index = std::move(entry->args[0]);
    target.column = std::move(entry->args[1]);
  } else if (const auto array = FindArray(name.text)) {
    ExprPtr element = ArrayElement(name, *array);
    target.local = array->local;
    target.var = element->var;
    if (!element->args.empty()) {
      target.index = std::move(element->args[0]);
      target.size = array->size;
      span = array->size;
    }
  } else {
    const auto ref = FindVar(name.text);
    if (!ref) Fail(name, "unknown variable '" + name.text + "'");
    target.local = ref->local;
    target.var = ref->index;
    if (Peek("[") && PeekAt(1, "self") && PeekAt(2, "]")) {
      pos_ += 3;  // a[self]: the thread's own entry
    } else if (Accept("[")) {
      if (!ref->local || std::find(per_thread_arrays_.begin(), per_thread_arrays_.end(),
                                   ref->index) == per_thread_arrays_.end()) {
        Fail(tokens_[pos_ - 1], "'" + name.text + "' is not an array: a thread assigns it as `" +
                                    name.text + " := ...`");
      }
      target.index = ParseIntExpr();  // another thread's entry: not symmetric
      Expect("]");
      MarkAsymmetric(target.index->where, "an assignment to another thread's array entry");
    }
  }
  for (const Instr::Target& other : op.targets) {
    const std::uint32_t other_span = other.index && other.size > 0 ? other.size : 1;
    if (other.pair != target.pair) continue;
    if (other.local == target.local && other.var < target.var + span &&
        target.var < other.var + other_span) {
      Fail(name, "'" + name.text + "' is assigned twice in one statement");
    }
  }
  return target;
}

void Parser::ParseAssignments(Instr& op) {
  op.kind = Instr::Kind::kAssign;
  do {
    if (!op.targets.empty() && Cur().kind == Token::Kind::kIdent && IsKeyword(Cur().text)) {
      Fail(Cur(), "expected a variable to assign" + Found() +
                      ": ',' joins assignments only; to do more in one step, write the "
                      "instructions in a block separated by ';', as `atomic { ... := ...; " +
                      Cur().text + " ... }`");
    }
    const Token& name = ExpectIdent("a variable to assign");
    Instr::Target target = ParseTarget(name, op);
    const Variable& var = TargetVariable(program_, target);
    Expect(":=");
    op.targets.push_back(std::move(target));
    if (Peek("fetch_and_add")) {
      // x := fetch_and_add(v [, e]) is x := v, v := v + e (default 1), atomically.
      const Token& kw = tokens_[pos_++];
      Expect("(");
      const Token& vname = ExpectIdent("a shared variable");
      const auto vref = FindVar(vname.text);
      if (!vref || vref->local) Fail(vname, "fetch_and_add needs a shared integer variable");
      if (program_.shared[vref->index].type == Type::kBool) {
        Fail(vname, "fetch_and_add needs an integer variable");
      }
      ExprPtr amount = Accept(",") ? ParseIntExpr() : MakeNumber(1, Where(kw));
      Expect(")");
      for (const Instr::Target& other : op.targets) {
        if (!other.local && other.var == vref->index) {
          Fail(vname, "'" + vname.text + "' is assigned twice in one statement");
        }
      }
      auto read = std::make_unique<Expr>();
      read->kind = Expr::Kind::kShared;
      read->var = vref->index;
      read->where = Where(vname);
      auto sum = std::make_unique<Expr>();
      sum->kind = Expr::Kind::kBinary;
      sum->op = Expr::Op::kAdd;
      sum->where = Where(kw);
      sum->args.push_back(CloneShared(vref->index, Where(vname)));
      sum->args.push_back(std::move(amount));
      if (var.type == Type::kBool) Fail(name, "fetch_and_add returns an integer");
      op.exprs.push_back(std::move(read));
      op.targets.push_back({false, vref->index, nullptr, 0, false, nullptr});
      op.exprs.push_back(std::move(sum));
      continue;
    }
    if (Peek("*")) {  // any value of the target's type
      auto any = std::make_unique<Expr>();
      any->kind = Expr::Kind::kHavoc;
      any->sort = var.type == Type::kBool ? Sort::kBool : Sort::kInt;
      any->where = Where(Cur());
      ++pos_;
      if (var.type != Type::kBool && program_.chooses_at.line == 0)
        program_.chooses_at = any->where;
      op.exprs.push_back(std::move(any));
      continue;
    }
    op.exprs.push_back(var.type == Type::kBool ? ParseBoolExpr() : ParseIntExpr());
  } while (Accept(","));
}

void Parser::ParseAssignEach(Instr& op) {
  const Token& kw = tokens_[pos_++];
  op.kind = Instr::Kind::kAssignEach;
  Expr binder;
  ParseBinder(binder);
  op.slot = binder.var;
  op.exclude_self = binder.exclude_self;
  const std::string thread = bound_.back().first;
  Expect(":");
  do {
    const Token& name = ExpectIdent("a per-thread variable to assign");
    const auto ref = FindVar(name.text);
    if (!ref || !ref->local || FindArray(name.text)) {
      Fail(name, "`forall " + thread + ": x[" + thread + "] := ...` assigns every thread's copy " +
                     "of a local (or entry of a `[threads]` array); '" + name.text +
                     "' is not one");
    }
    if (!Accept("[") || !Peek(thread) || !PeekAt(1, "]")) {
      Fail(Cur(), "each target of `forall " + thread + ":` is thread " + thread + "'s entry, `" +
                      name.text + "[" + thread + "]`" + Found());
    }
    pos_ += 2;
    for (const Instr::Target& other : op.targets) {
      if (other.var == ref->index)
        Fail(name, "'" + name.text + "' is assigned twice in one statement");
    }
    Expect(":=");
    op.targets.push_back({true, ref->index, nullptr, 0, false, nullptr});
    if (Peek("*"))
      Fail(Cur(), "`*` cannot be every thread's value yet: choose it in a local first");
    op.exprs.push_back(program_.locals[ref->index].type == Type::kBool ? ParseBoolExpr()
                                                                       : ParseIntExpr());
  } while (Accept(","));
  bound_.pop_back();
  // Symmetric, but the arguments that use symmetry assume a step writes the actor's entries only.
  MarkAsymmetric(Where(kw), "an update of every thread's entry in one step");
  if (program_.updates_every_at.line == 0) program_.updates_every_at = Where(kw);
}

ExprPtr Parser::CloneShared(std::uint32_t var, const SourceLocation& where) {
  auto e = std::make_unique<Expr>();
  e->kind = Expr::Kind::kShared;
  e->var = var;
  e->where = where;
  return e;
}

}  // namespace druba::drb::internal
