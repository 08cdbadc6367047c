// The JSON reader: arrays of whole numbers are packed, everything else is a value of its own, and
// every error names file, line and column.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/diagnostics.h"
#include "common/json_reader.h"

namespace druba {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    ParseJson(text, "f.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(JsonReaderTest, ArraysOfWholeNumbersArePacked) {
  const JsonValue doc =
      ParseJson(R"({"a": [1, -1, 4294967295, 0], "b": [], "c": [[2, 3], [4]]})", "f.json");
  const auto a = doc.At("a").Integers();
  EXPECT_EQ(std::vector<std::int64_t>(a.begin(), a.end()),
            (std::vector<std::int64_t>{1, -1, 4294967295, 0}));
  EXPECT_TRUE(doc.At("a").items.empty());
  EXPECT_TRUE(doc.At("b").Integers().empty());
  EXPECT_TRUE(doc.At("b").Items().empty());
  ASSERT_EQ(doc.At("c").Items().size(), 2U);
  EXPECT_EQ(doc.At("c").Items()[1].Integers()[0], 4);
  EXPECT_THROW(doc.At("c").Integers(), InputError);
  EXPECT_THROW(doc.At("a").Items(), InputError);
}

TEST(JsonReaderTest, MixedArraysKeepEveryElementInOrder) {
  const JsonValue doc = ParseJson(R"([1, 2, "x", 3.5, 4])", "f.json");
  const std::vector<JsonValue>& items = doc.Items();
  ASSERT_EQ(items.size(), 5U);
  EXPECT_EQ(items[1].AsUInt(), 2U);
  EXPECT_EQ(items[2].AsString(), "x");
  EXPECT_EQ(items[3].number, 3.5);
  EXPECT_THROW(items[3].AsUInt(), InputError);
  EXPECT_EQ(items[4].AsUInt(), 4U);
  const JsonValue leading = ParseJson(R"([1.5, 2])", "f.json");
  ASSERT_EQ(leading.Items().size(), 2U);
  EXPECT_EQ(leading.Items()[1].AsUInt(), 2U);
}

TEST(JsonReaderTest, WholeNumbersAreDigitsOnly) {
  const JsonValue doc =
      ParseJson(R"({"a": 7, "b": 7.0, "c": 1e3, "d": -2, "e": 4294967296})", "f.json");
  EXPECT_EQ(doc.At("a").AsUInt(), 7U);
  EXPECT_THROW(doc.At("b").AsUInt(), InputError);
  EXPECT_THROW(doc.At("c").AsUInt(), InputError);
  EXPECT_THROW(doc.At("d").AsUInt(), InputError);
  EXPECT_THROW(doc.At("e").AsUInt(), InputError);
}

TEST(JsonReaderTest, ErrorsNameFileLineAndColumn) {
  EXPECT_NE(
      ErrorOf("{\n  \"a\": [1, 2,, 3]\n}").find("f.json:2:14: error: unexpected character ','"),
      std::string::npos);
  EXPECT_NE(ErrorOf("[1, 2").find("f.json:1:6: error: expected ']'"), std::string::npos);
  EXPECT_NE(ErrorOf("[1, 2-3]").find("f.json:1:5: error: malformed number '2-3'"),
            std::string::npos);
  try {
    const JsonValue doc = ParseJson("{\n \"rows\": [[1], {}]}", "f.json");
    doc.At("rows").Items()[0].Items();
    FAIL() << "an array of numbers read as values";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("f.json:2:11: error: expected an array of values"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace druba
