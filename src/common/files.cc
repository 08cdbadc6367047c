#include "common/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/diagnostics.h"

namespace druba {
namespace {

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw InputError({path, 0, 0}, "cannot write the file: " + what);
}

// Writes all of `text` to `fd`; false on an error (errno says which).
bool WriteAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// A device, a FIFO or another special file: written in place, never replaced.
void WriteInPlace(const std::string& shown, const std::string& path, const std::string& text) {
  // Non-blocking open: a FIFO without a reader is an error (ENXIO), not a hang.
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) {
    Fail(shown, errno == ENXIO ? std::string("a FIFO with no reader") : std::strerror(errno));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  const bool ok = WriteAll(fd, text);
  const int saved = errno;
  if (::close(fd) != 0 && ok) Fail(shown, std::strerror(errno));
  if (!ok) Fail(shown, std::strerror(saved));
}

// The path a chain of symbolic links ends at, whether or not that path exists yet (a link to a
// file still to be written is followed too); a loop of links is an error.
std::filesystem::path FollowLinks(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path target = path;
  for (int hops = 0;; ++hops) {
    std::error_code error;
    if (!fs::is_symlink(fs::symlink_status(target, error))) break;
    if (hops == 40) Fail(path, "too many levels of symbolic links");
    const fs::path next = fs::read_symlink(target, error);
    if (error) Fail(path, error.message());
    target = next.is_absolute() ? next : target.parent_path() / next;
  }
  return target;
}

// Standard output or standard error when `path` names the file, pipe or device one of them is
// open on (/dev/stdout, /dev/fd/2, the file stdout is redirected to), else -1.
int StandardStreamAt(const std::string& path) {
  struct stat named {};
  if (::stat(path.c_str(), &named) != 0) return -1;
  for (const int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat open {};
    if (::fstat(fd, &open) == 0 && open.st_dev == named.st_dev && open.st_ino == named.st_ino) {
      return fd;
    }
  }
  return -1;
}

}  // namespace

std::string ReadFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw InputError({path, 0, 0}, "it is a directory, not a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError({path, 0, 0}, "cannot open the file");
  // Read at most kMaxInputBytes (and one more, to tell): an endless file such as a device must
  // not be read until memory runs out.
  std::string text;
  std::vector<char> chunk(1 << 16);
  while (in && text.size() <= kMaxInputBytes) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw InputError({path, 0, 0}, "cannot read the file");
  if (text.size() > kMaxInputBytes) {
    throw InputError({path, 0, 0}, "the file is larger than " +
                                       std::to_string(kMaxInputBytes >> 20) +
                                       " MiB, the most druba reads");
  }
  return text;
}

void WriteFileAtomically(const std::string& path, const std::string& text) {
  namespace fs = std::filesystem;
  // Where the report goes too: appended to the stream where it stands (replacing the file, or
  // reopening a pipe, would lose what is written there before or after).
  if (const int fd = StandardStreamAt(path); fd >= 0) {
    if (!WriteAll(fd, text)) Fail(path, std::strerror(errno));
    return;
  }
  std::error_code error;
  const fs::path target = FollowLinks(path);
  const fs::file_status status = fs::status(target, error);
  if (fs::exists(status)) {
    if (fs::is_directory(status)) Fail(path, "it is a directory");
    if (!fs::is_regular_file(status)) {
      WriteInPlace(path, target.string(), text);
      return;
    }
  }
  // A regular file (or none yet): a unique temporary file beside it, renamed over it.
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string name = (dir / ("." + target.filename().string() + ".druba-XXXXXX")).string();
  std::vector<char> temp(name.begin(), name.end());
  temp.push_back('\0');
  const int fd = ::mkstemp(temp.data());
  if (fd < 0) Fail(path, std::strerror(errno));
  const std::string temp_path(temp.data());
  // mkstemp makes the file 0600: give it the existing file's mode, or what a new file would get.
  mode_t mode = 0666;
  struct stat existing {};
  if (::stat(target.c_str(), &existing) == 0) {
    mode = existing.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode &= ~mask;
  }
  const bool ok = WriteAll(fd, text) && ::fchmod(fd, mode) == 0;
  const int saved = errno;
  const bool closed = ::close(fd) == 0;
  if (!ok || !closed) {
    ::unlink(temp_path.c_str());
    Fail(path, std::strerror(ok ? errno : saved));
  }
  if (::rename(temp_path.c_str(), target.c_str()) != 0) {
    const int rename_error = errno;
    ::unlink(temp_path.c_str());
    Fail(path, std::strerror(rename_error));
  }
}

}  // namespace druba
