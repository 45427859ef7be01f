package metrics

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile creates the file path with what write writes to it, atomically
// and never over an existing file: a reader sees no file at path, then the
// whole of it.
//
// write's output goes (buffered) to a temporary file beside path, named
// ".<base>.tmp…"; the file is made 0644, synced and closed, then hard-linked
// to path, which fails atomically if path exists: the error then wraps
// [fs.ErrExist] and path is left as it was. On a file system without hard
// links, WriteFile checks that path is absent and renames the file into
// place (there, a file created at path in between would be replaced). The
// temporary file is removed whatever happens; an error from write is
// returned wrapped, and nothing is left at path.
func WriteFile(path string, write func(io.Writer) error) error {
	return finish(path, write, place)
}

// ReplaceFile is WriteFile but for its last step: the finished file is
// renamed to path, over the file there if there is one, so that a reader
// sees the old file whole, then the new one whole. It is for a file the
// caller has decided to replace (a rendered page of the same template).
func ReplaceFile(path string, write func(io.Writer) error) error {
	return finish(path, write, os.Rename)
}

// finish writes write's output to a temporary file beside path, makes it
// 0644, syncs and closes it, and gives it the name path with name
// (place or os.Rename); the temporary name is removed whatever happens.
func finish(path string, write func(io.Writer) error, name func(tmp, path string) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return fmt.Errorf("metrics: writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close() // it may be closed already: that error is moot
		}
		os.Remove(tmp.Name()) // after a link, path keeps the data; after a rename, nothing is there
		if err != nil {
			err = fmt.Errorf("metrics: writing %s: %w", path, err)
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return name(tmp.Name(), path)
}

// link is os.Link; tests replace it to play a file system without hard
// links.
var link = os.Link

// place gives the finished file tmp the name path as well, never over an
// existing path: a hard link fails atomically if path exists. Where the
// file system has no hard links, it checks and renames.
func place(tmp, path string) error {
	lerr := link(tmp, path)
	if lerr == nil {
		return nil
	}
	if errors.Is(lerr, fs.ErrExist) {
		return fs.ErrExist
	}
	if _, err := os.Lstat(path); err == nil {
		return fs.ErrExist
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return errors.Join(lerr, err)
	}
	return nil
}
