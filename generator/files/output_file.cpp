#include "generator/files/output_file.hpp"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

namespace tcgen {
namespace {

// The limit Linux itself applies to the symlinks of one lookup.
constexpr int max_symlinks = 40;

std::string cannot_write(const std::string& path, int error_number) {
    return "cannot write '" + path + "': " + std::strerror(error_number);
}

// Returns 0 or the errno of the failure. write() may write less than asked
// (signals, pipes), so loop.
int write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        ssize_t written = ::write(fd, text.data() + done, text.size() - done);
        if (written < 0) {
            if (errno == EINTR) {
                continue;
            }
            return errno;
        }
        if (written == 0) {
            return EIO;  // Not expected for a non-empty write, but must not spin.
        }
        done += static_cast<std::size_t>(written);
    }
    return 0;
}

// Writes and closes `fd`; the close is checked because some file systems
// (NFS, quotas) only report a failed write there. Returns 0 or an errno.
int write_and_close(int fd, const std::string& text) {
    int error_number = write_all(fd, text);
    if (::close(fd) != 0 && error_number == 0) {
        error_number = errno;
    }
    return error_number;
}

bool write_standard_output(const std::string& text, std::string& error) {
    int error_number = write_and_close(STDOUT_FILENO, text);
    if (error_number != 0) {
        error = std::string("cannot write to standard output: ") + std::strerror(error_number);
        return false;
    }
    return true;
}

std::string directory_of(const std::string& path) {
    std::size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash + 1);
}

// Follows the symlinks of the last component of `path` until it names
// something that is not a symlink or does not exist yet. realpath() fails on a
// dangling symlink, whose target must be created here, so this is done by
// hand; the directories on the way are left to the kernel. Returns 0 or an
// errno.
int resolve_symlinks(std::string& path) {
    for (int followed = 0;; ++followed) {
        struct stat status;
        if (::lstat(path.c_str(), &status) != 0) {
            return errno == ENOENT ? 0 : errno;
        }
        if (!S_ISLNK(status.st_mode)) {
            return 0;
        }
        if (followed == max_symlinks) {
            return ELOOP;
        }
        std::vector<char> link(PATH_MAX);
        ssize_t length = ::readlink(path.c_str(), link.data(), link.size());
        if (length < 0) {
            return errno;
        }
        if (static_cast<std::size_t>(length) == link.size()) {
            return ENAMETOOLONG;
        }
        std::string target(link.data(), static_cast<std::size_t>(length));
        path = !target.empty() && target.front() == '/' ? target : directory_of(path) + target;
    }
}

// For a new file: the mode open(..., 0666) would give it. POSIX reads the
// umask only by setting it; tcgen has a single thread, so that is safe.
mode_t new_file_mode() {
    mode_t mask = ::umask(0);
    ::umask(mask);
    return 0666 & ~mask;
}

// Writes `text` to a fresh temporary next to `target` and renames it over
// `target`, which thus changes only once the whole text is written. mkstemp()
// creates the temporary with O_EXCL under an unpredictable name, so neither a
// planted symlink nor a user's file of that name is written through or
// destroyed. `existing` is the target's status, or null for a new file; `path`
// is the name the user gave, for the message.
bool replace_via_temporary(const std::string& target, const struct stat* existing, const std::string& text,
                           const std::string& path, std::string& error) {
    std::string directory = directory_of(target);
    std::string pattern = directory + "." + target.substr(directory.size()) + ".XXXXXX";
    std::vector<char> temporary(pattern.begin(), pattern.end());
    temporary.push_back('\0');
    int fd = ::mkstemp(temporary.data());
    if (fd < 0) {
        error = cannot_write(path, errno);
        return false;
    }
    // Keeps the owner when root rewrites a user's file. An ordinary user
    // cannot give a file away; the result is then theirs, like any file they
    // create, so a failure here is no error.
    if (existing != nullptr && ::fchown(fd, existing->st_uid, existing->st_gid) != 0) {
    }
    // Only the permission bits: set-id bits must not pass to a file whose
    // owner may have changed.
    mode_t mode = existing != nullptr ? (existing->st_mode & 0777) : new_file_mode();
    int error_number = 0;
    if (::fchmod(fd, mode) != 0) {
        error_number = errno;
        ::close(fd);
    } else {
        error_number = write_and_close(fd, text);
    }
    // No fsync, as with compilers: the rename already makes the file appear
    // only complete to other programs; a power loss is the file system's job.
    if (error_number == 0 && ::rename(temporary.data(), target.c_str()) != 0) {
        error_number = errno;
    }
    if (error_number != 0) {
        ::unlink(temporary.data());
        error = cannot_write(path, error_number);
        return false;
    }
    return true;
}

// Opens the existing `path` and writes it; never creates it. O_TRUNC does
// nothing to what is not a regular file.
bool write_in_place(const std::string& path, const std::string& text, std::string& error) {
    int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_NOCTTY);
    int error_number = fd < 0 ? errno : write_and_close(fd, text);
    if (error_number != 0) {
        error = cannot_write(path, error_number);
        return false;
    }
    return true;
}

bool same_file(const struct stat& a, const struct stat& b) {
    return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

bool write_output(const std::string& path, const std::string& text, const std::vector<std::string>& input_paths,
                  std::string& error) {
    if (path.empty() || path == "-") {
        return write_standard_output(text, error);
    }
    // stat() lets the kernel follow every symlink, including the magic ones of
    // /proc (/dev/stdout may name a pipe), to the object that open() would
    // write.
    struct stat existing;
    bool exists = ::stat(path.c_str(), &existing) == 0;
    if (!exists && errno != ENOENT) {
        error = cannot_write(path, errno);
        return false;
    }
    for (const std::string& input_path : input_paths) {
        struct stat input;
        if (exists && input_path != "-" && ::stat(input_path.c_str(), &input) == 0 && same_file(existing, input)) {
            error = "refusing to overwrite the input '" + path + "' with the output";
            return false;
        }
    }
    // A device, FIFO or socket cannot be replaced, only written to, and a file
    // with other hard links must stay one file with them. Neither needs the
    // target's name, so open() follows the symlinks itself.
    if (exists && (!S_ISREG(existing.st_mode) || existing.st_nlink > 1)) {
        return write_in_place(path, text, error);
    }
    std::string target = path;
    int error_number = resolve_symlinks(target);
    if (error_number != 0) {
        error = cannot_write(path, error_number);
        return false;
    }
    if (exists) {
        // A rename would go around the file's own write protection; refuse as
        // open() would.
        if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0) {
            error = cannot_write(path, errno);
            return false;
        }
        // A /proc magic link reads as a name that is not the file (a deleted
        // file, another mount namespace); then write through the link instead
        // of renaming over some other file.
        struct stat resolved;
        if (::lstat(target.c_str(), &resolved) != 0 || !same_file(resolved, existing)) {
            return write_in_place(path, text, error);
        }
    }
    return replace_via_temporary(target, exists ? &existing : nullptr, text, path, error);
}

}  // namespace tcgen
