#pragma once
// Writes tcgen's result the way compilers write theirs.
//
// - "" or "-" is standard output.
// - A symlink is followed to its final target, even one that does not exist
//   yet; the symlink itself stays.
// - The spec being read is never overwritten, however it is named (a
//   relative path, a symlink or a hard link to it).
// - Something that is not a regular file (a device, a FIFO, a socket) is
//   opened and written straight through.
// - A regular file with other hard links is truncated and written in place,
//   so that the links stay one file.
// - Any other file is written to a fresh temporary of its directory and
//   renamed over it, so that it appears only complete and a failed run leaves
//   it untouched. It keeps the old file's permission bits, and a file that
//   may not be written is refused, as open() would refuse it.

#include <string>
#include <vector>

namespace tcgen {

// Writes `text` to `path`, refusing to replace any of `input_paths`, the
// files that were read ("-" for standard input, which never collides with
// the output). On failure returns
// false and sets `error` to a one-line reason such as
// "cannot write 'out.cpp': No space left on device".
bool write_output(const std::string& path, const std::string& text, const std::vector<std::string>& input_paths,
                  std::string& error);

}  // namespace tcgen
