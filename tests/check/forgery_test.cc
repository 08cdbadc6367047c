// Forged certificates, every one of which the checker must reject: for each `.drb` certificate
// kind (predicates at one count, predicates for every count with symmetric and with ordered ids,
// Horn invariants, explicit states), claims of safety for programs that fail, with the digest
// recomputed as a forger would. The programs: every bundled `-broken.drb` model (with the weakest
// forgery, the invariant `true`, and with the genuine certificate of its fixed twin), random
// programs whose failure brute force finds, `count(...)` compared with numbers above 64 (a failure
// from 65 threads on), and thread counts above 64. "Rejected" is invalid or refused as malformed
// (InputError); valid is a defect.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "abstraction/driver.h"
#include "check/drb_check.h"
#include "check/drb_explicit.h"
#include "check/drb_invariant.h"
#include "common/diagnostics.h"
#include "common/digest.h"
#include "common/json_reader.h"
#include "interp/model.h"
#include "interp/program.h"
#include "predabs/brute_force.h"
#include "predabs/predicate_abstraction.h"
#include "strategy/certificate.h"
#include "support/random_drb.h"
#include "support/sweep.h"

namespace druba::check {
namespace {

using predabs::Program;

constexpr unsigned kTimeoutMs = 5000;

struct Outcome {
  bool valid = false;
  std::string why;  // the condition that failed, or "refused: ..." for an InputError
};

// `certificate` checked against `source` by the checker of its kind.
Outcome Check(const std::string& certificate, const std::string& source) {
  try {
    const JsonValue doc = ParseJson(certificate, "forged.json");
    const std::string digest = ContentDigest({source});
    const std::string& kind = doc.At("kind").AsString();
    const CheckResult r =
        kind == "drb explicit" ? CheckDrbExplicitCertificate(doc, digest, source, "forged.drb")
        : kind == "drb invariant"
            ? CheckDrbInvariantCertificate(doc, digest, source, "forged.drb", nullptr, kTimeoutMs)
            : CheckDrbCertificate(doc, digest, source, "forged.drb", nullptr, kTimeoutMs);
    return {r.valid, r.failed + ": " + r.example};
  } catch (const InputError& e) {
    return {false, std::string("refused: ") + e.what()};
  }
}

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string Header(const std::string& kind, const std::string& source, std::uint32_t threads,
                   const std::string& proof) {
  return fmt::format(R"({{"druba_certificate": 1, "kind": "{}", "digest": "{}", "threads": {}, )"
                     R"("proof": "{}", "deadlock": false, )",
                     kind, ContentDigest({source}), threads, proof);
}

// The weakest claims: the invariant `true` (one abstract state, its predicate true), at one count,
// for every count from `threads` (symmetric or ordered ids).
std::string TrueAtOneCount(const std::string& source, std::uint32_t threads) {
  return Header("drb predicates", source, threads, "plateau") +
         R"("abstraction": "abstraction druba_certificate {\n  predicate P: true;\n}\n", )"
         R"("abstract_states": [[1, 0]]})";
}
std::string TrueAtEveryCount(const std::string& source, std::uint32_t threads, bool ordered) {
  return Header("drb predicates", source, threads, "every-count") +
         R"("abstraction": "abstraction druba_certificate {\n  predicate P: true;\n}\n", )" +
         R"("every_count": true, )" + (ordered ? R"("thread_ids": "ordered", )" : "") +
         R"("abstract_states": [[1, 0]]})";
}
// `true` at every location tuple (none when there are more than `most`).
std::string TrueInvariant(const std::string& source, const Program& program, std::uint32_t threads,
                          std::size_t most) {
  std::vector<std::vector<std::uint32_t>> per_thread;
  for (std::size_t k = 0; k < program.templates.size(); ++k) {
    const auto& tt = program.templates[k];
    const std::uint32_t count = program.templates.size() == 1 ? threads : tt.count;
    std::vector<std::uint32_t> locations{tt.end_pc};
    for (std::uint32_t pc = tt.first; pc < tt.first + tt.size; ++pc) locations.push_back(pc);
    per_thread.insert(per_thread.end(), count, locations);
  }
  std::vector<std::vector<std::uint32_t>> tuples{{}};
  for (const auto& locations : per_thread) {
    std::vector<std::vector<std::uint32_t>> longer;
    for (const auto& tuple : tuples) {
      for (const std::uint32_t pc : locations) {
        longer.push_back(tuple);
        longer.back().push_back(pc);
      }
      if (longer.size() > most) return "";
    }
    tuples = std::move(longer);
  }
  std::string block = "abstraction druba_invariant {\n";
  std::string rows;
  for (std::size_t i = 0; i < tuples.size(); ++i) {
    block += fmt::format("  predicate at{}: true;\n", i);
    rows += fmt::format("{}[{}]", i == 0 ? "" : ", ", fmt::join(tuples[i], ", "));
  }
  return Header("drb invariant", source, threads, "invariant") + R"("abstraction": )" +
         Quoted(block + "}\n") + R"(, "locations": [)" + rows + "]}";
}

// Tallies the outcomes of one family of forgeries; any valid one fails the test.
class Tally {
 public:
  void Expect(const std::string& what, const std::string& certificate, const std::string& source) {
    if (certificate.empty()) return;
    const Outcome o = Check(certificate, source);
    ++checked_;
    EXPECT_FALSE(o.valid) << what << ": a forged certificate was judged valid\n"
                          << source << "\n"
                          << certificate;
    ++why_[o.why.substr(0, o.why.find(':'))];
  }
  std::size_t checked() const { return checked_; }
  void Print(const char* name) const {
    std::string reasons;
    for (const auto& [why, count] : why_) reasons += fmt::format(" {} {};", why, count);
    std::fprintf(stderr, "%s: %zu forgeries rejected (%s)\n", name, checked_, reasons.c_str());
  }

 private:
  std::size_t checked_ = 0;
  std::map<std::string, std::size_t> why_;
};

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Each bundled `-broken.drb` model, with `true` at its own count (one count, the invariant kind),
// for every count from it, and with the certificate of its fixed twin's plateau proof (its
// abstraction and abstract set, where the twin has a block and the driver proves it alone). Every
// model with a sweep factor of 1 or more (`ctest -L long`), every second at 0.5 (scripts/test),
// every eighth under the sanitizers.
TEST(ForgeryTest, BrokenModelsHaveNoValidCertificate) {
  const std::filesystem::path models = std::filesystem::path(DRUBA_SOURCE_DIR) / "models";
  std::set<std::filesystem::path> broken;  // in order: the share taken does not depend on the disk
  for (const auto& entry : std::filesystem::directory_iterator(models)) {
    if (entry.path().filename().string().ends_with("-broken.drb")) broken.insert(entry.path());
  }
  const auto stride = static_cast<std::size_t>(std::max(1.0, 1 / testing::SweepFactor() + 0.5));
  Tally tally;
  std::size_t twins = 0;
  std::size_t index = 0;
  for (const std::filesystem::path& path : broken) {
    if (index++ % stride != 0) continue;
    const std::string name = path.filename().string();
    const std::string source = ReadText(path);
    const Program program = predabs::ParseProgram(source, name);
    const std::uint32_t n = program.NumThreads();
    tally.Expect(name + " true", TrueAtOneCount(source, n), source);
    tally.Expect(name + " true, every count", TrueAtEveryCount(source, n, false), source);
    tally.Expect(name + " true, every count, ordered", TrueAtEveryCount(source, n, true), source);
    tally.Expect(name + " true invariant", TrueInvariant(source, program, n, 300), source);
    const std::filesystem::path twin = models / (name.substr(0, name.size() - 11) + ".drb");
    if (!std::filesystem::exists(twin)) continue;
    const std::string twin_source = ReadText(twin);
    const Program fixed = predabs::ParseProgram(twin_source, twin.filename().string());
    if (fixed.abstractions.empty() || fixed.NumThreads() != n) continue;
    predabs::IntModel model(fixed, n);
    const predabs::PredicateAbstraction abs(model, fixed.abstractions[0], kTimeoutMs);
    PlateauDriver<predabs::IntModel, predabs::PredicateAbstraction> run(model, abs);
    if (run.Verify().verdict != Verdict::kSafe) continue;
    ++twins;
    tally.Expect(
        name + " with its twin's certificate",
        predabs::PredicatesCertificate({ContentDigest({source}), n, false, false, "plateau", &fixed,
                                        &fixed.abstractions[0], &run.abstract_states()}),
        source);
  }
  tally.Print("BrokenModels");
  EXPECT_GE(tally.checked(), 4 * (broken.size() / stride) - 10);
  // Which twins the share takes moves as models are added (barrier-release-broken.drb moved one
  // out of scripts/test's half): at least two there, five in the whole sweep.
  EXPECT_GE(twins, 5 / stride);
}

// Random programs whose failure brute force finds, at 1 to 3 threads: `true` at their count and
// for every count, the Horn kind's `true`, the abstract states of their non-failed reachable
// states under their own abstraction, and those states themselves (explicit, as they are and up to
// symmetry).
TEST(ForgeryTest, RandomFailingProgramsHaveNoValidCertificate) {
  predabs::Generator gen(57);
  Tally tally;
  std::size_t failing = 0;
  for (int round = 0; round < testing::Sweep(240); ++round) {
    gen.SetStructured(round % 2 == 0);
    gen.SetCountValues(round % 3 == 0);
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string source = gen.Program(n, 3 + round % 3, true, 1 + round % 2, round % 2 == 0);
    const Program program = predabs::ParseProgram(source, "random.drb");
    predabs::IntModel model(program, n);
    predabs::States safe_part;
    bool fails = false;
    for (const auto& s : predabs::Reachable(model)) {
      const bool failed = model.AnyThreadFailed(StateView(s));
      fails = fails || failed;
      if (!failed) safe_part.push_back(s);
    }
    if (!fails) continue;
    ++failing;
    tally.Expect("true", TrueAtOneCount(source, n), source);
    tally.Expect("true, every count", TrueAtEveryCount(source, n, false), source);
    tally.Expect("true, every count, ordered", TrueAtEveryCount(source, n, true), source);
    tally.Expect("true invariant", TrueInvariant(source, program, n, 300), source);
    const predabs::PredicateAbstraction abs(model, program.abstractions[0], kTimeoutMs);
    StateStore reached(abs.width());
    std::vector<Word> a(abs.width());
    for (const auto& s : safe_part) {
      abs.Abstract(StateView(s), std::span<Word>(a));
      reached.FindOrInsert(StateView(a));
    }
    tally.Expect(
        "the reachable abstract states but the failed",
        predabs::PredicatesCertificate({ContentDigest({source}), n, false, false, "plateau",
                                        &program, &program.abstractions[0], &reached}),
        source);
    std::string rows;
    for (const auto& s : safe_part) {
      rows += rows.empty() ? "[" : ",[";
      for (std::size_t w = 0; w < s.size(); ++w) {
        const bool pc = w >= program.shared.size() &&
                        (w - program.shared.size()) % (1 + program.locals.size()) == 0;
        rows +=
            (w == 0 ? "" : ",") + (pc ? std::to_string(s[w]) : model.values().Decode(s[w]).str());
      }
      rows += "]";
    }
    for (const char* symmetry : {"none", "threads"}) {
      tally.Expect(std::string("the reachable states but the failed, symmetry ") + symmetry,
                   Header("drb explicit", source, n, "exhausted") + R"("symmetry": ")" + symmetry +
                       R"(", "states": [)" + rows + "]}",
                   source);
    }
  }
  tally.Print("RandomFailingPrograms");
  EXPECT_GT(failing, testing::AtLeastU(20));
}

// `count(...)` compared with numbers above 64, each way round: the program fails from 65 threads
// (or more) on and holds below. Neither every-count encoding may assume the count away.
TEST(ForgeryTest, CountsAbove64AreNeverAssumed) {
  Tally tally;
  const char* comparisons[] = {
      "count(i: f[i]) < {}",       "count(i: f[i]) <= {}",       "{} > count(i: f[i])",
      "count(i: f[i]) != {}",      "!(count(i: f[i]) >= {})",    "count(i != self: f[i]) < {}",
      "count(i: pc[i] == t) < {}", "{} >= count(i: pc[i] != s)", "count(i: f[i]) == {} || true"};
  for (const int k : {65, 97, 130}) {
    for (const char* comparison : comparisons) {
      const std::string property = fmt::format(fmt::runtime(comparison), k);
      if (property.ends_with("|| true")) continue;  // a tautology: no failure to miss
      const std::string source =
          "shared bool f[threads] = false;\nthread T * 2 {\n  s: f[self] := true;\n  t: assert " +
          property + ";\n}\n";
      for (const std::uint32_t first : {2U, 64U}) {
        tally.Expect(property + " every count", TrueAtEveryCount(source, first, false), source);
        tally.Expect(property + " every count, ordered", TrueAtEveryCount(source, first, true),
                     source);
      }
    }
  }
  tally.Print("CountsAbove64");
  EXPECT_GE(tally.checked(), 3U * 8U * 4U);
}

// One-count certificates for more than 64 threads are refused, with the reason, whatever the
// claim: a program that fails only from 65 threads on cannot be certified at 65, 100 or 2^32-1.
TEST(ForgeryTest, ThreadCountsAbove64AreRefusedWithTheirReason) {
  const std::string source =
      "shared int x = 0;\nthread T * 2 {\n  a: x := x + 1;\n  b: assert x < 65;\n}\n";
  const Program program = predabs::ParseProgram(source, "many.drb");
  for (const std::uint32_t n : {65U, 100U, 1000U, 4294967295U}) {
    for (const std::string& certificate :
         {TrueAtOneCount(source, n), TrueAtEveryCount(source, n, false),
          Header("drb explicit", source, n, "exhausted") + R"("states": []})",
          Header("drb invariant", source, n, "invariant") +
              R"("abstraction": "abstraction druba_invariant {\n  predicate at0: true;\n}\n", )"
              R"("locations": [[0, 0]]})"}) {
      const Outcome o = Check(certificate, source);
      EXPECT_FALSE(o.valid) << certificate;
      EXPECT_NE(o.why.find("at most 64"), std::string::npos) << n << ": " << o.why;
    }
  }
  (void)program;
}

}  // namespace
}  // namespace druba::check
