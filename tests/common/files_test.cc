// Output files: a regular file is replaced atomically through a unique temporary name, a symbolic
// link is followed, a FIFO or device is written in place and never replaced, a directory is an
// error. Everything happens inside a temporary directory made for the test; no device is named.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/diagnostics.h"
#include "common/files.h"

namespace druba {
namespace {

namespace fs = std::filesystem;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string templ = (fs::temp_directory_path() / "druba-files-XXXXXX").string();
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override { fs::remove_all(dir_); }
  static std::string Read(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  std::size_t Entries() const {
    return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir_), {}));
  }
  fs::path dir_;
};

TEST_F(FilesTest, ARegularFileIsReplacedAndKeepsItsMode) {
  const fs::path file = dir_ / "out.txt";
  std::ofstream(file) << "old";
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  WriteFileAtomically(file.string(), "new\n");
  EXPECT_EQ(Read(file), "new\n");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(Entries(), 1u);  // no temporary file left
}

TEST_F(FilesTest, AnUnrelatedTmpFileIsLeftAlone) {
  const fs::path file = dir_ / "out.txt";
  std::ofstream(dir_ / "out.txt.tmp") << "someone else's";
  WriteFileAtomically(file.string(), "mine");
  EXPECT_EQ(Read(file), "mine");
  EXPECT_EQ(Read(dir_ / "out.txt.tmp"), "someone else's");
  EXPECT_EQ(Entries(), 2u);
}

TEST_F(FilesTest, ASymbolicLinkIsFollowed) {
  const fs::path target = dir_ / "target.txt";
  const fs::path link = dir_ / "link.txt";
  std::ofstream(target) << "old";
  fs::create_symlink(target, link);
  WriteFileAtomically(link.string(), "through the link");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(target), "through the link");
}

TEST_F(FilesTest, ALinkToAFileNotYetWrittenCreatesTheFile) {
  const fs::path link = dir_ / "link.txt";
  fs::create_symlink("sub/../target.txt", link);  // relative to the link's folder
  fs::create_directory(dir_ / "sub");
  WriteFileAtomically(link.string(), "first");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(Read(dir_ / "target.txt"), "first");
  const fs::path chain = dir_ / "chain.txt";
  fs::create_symlink("link.txt", chain);
  WriteFileAtomically(chain.string(), "second");
  EXPECT_TRUE(fs::is_symlink(chain));
  EXPECT_EQ(Read(dir_ / "target.txt"), "second");
}

TEST_F(FilesTest, ALoopOfLinksIsAnError) {
  fs::create_symlink("b", dir_ / "a");
  fs::create_symlink("a", dir_ / "b");
  EXPECT_THROW(WriteFileAtomically((dir_ / "a").string(), "x"), InputError);
}

TEST_F(FilesTest, AFifoIsWrittenInPlaceAndStaysAFifo) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = Read(fifo); });
  // The reader may not have opened the FIFO yet: retry until it has (bounded).
  bool written = false;
  for (int attempt = 0; attempt < 200 && !written; ++attempt) {
    try {
      WriteFileAtomically(fifo.string(), "through the pipe");
      written = true;
    } catch (const InputError&) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  if (!written) {  // unblock the reader before failing
    const int fd = ::open(fifo.c_str(), O_WRONLY);
    if (fd >= 0) ::close(fd);
  }
  reader.join();
  ASSERT_TRUE(written);
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(FilesTest, AFifoWithoutAReaderIsAnErrorNotAHang) {
  const fs::path fifo = dir_ / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    WriteFileAtomically(fifo.string(), "nobody reads");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no reader"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST_F(FilesTest, ADirectoryIsAnError) {
  try {
    WriteFileAtomically(dir_.string(), "x");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
}

// An input longer than the cap (an endless device given as an init or trace file would be one)
// is an error naming the file, read no further than the cap: a sparse file of 300 MiB stands in
// for the device, so no device is named.
TEST_F(FilesTest, AnInputPastTheCapIsAnErrorNotATrap) {
  const fs::path big = dir_ / "endless.init";
  { std::ofstream create(big); }
  fs::resize_file(big, std::uintmax_t{300} << 20);
  try {
    ReadFile(big.string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("endless.init"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("larger than 256 MiB"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace druba
