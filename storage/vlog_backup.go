package storage

import (
	"io"
	"os"
	"path/filepath"
)

// The value log in backups and checks: pins that hold off file deletion, and the copy of the
// files as of a snapshot.

// pin holds off file deletion until unpin, for a backup or a check reading a snapshot.
func (l *valueLog) pin() {
	l.mu.Lock()
	l.pins++
	l.mu.Unlock()
}

func (l *valueLog) unpin() {
	l.mu.Lock()
	l.pins--
	l.mu.Unlock()
}

// vlogCopy is the value log as of a snapshot: each file with its size then.
type vlogCopy struct {
	files []*vfile
	sizes []int64
}

// capture lists the files and their sizes. Taken after a LevelDB snapshot, it covers every
// pointer in the snapshot, since a value is written before its pointer is committed. The
// caller has pinned the log and calls release.
func (l *valueLog) capture() *vlogCopy {
	l.mu.Lock()
	defer l.mu.Unlock()
	vc := &vlogCopy{}
	for _, f := range l.files {
		f.refs.Add(1)
		vc.files = append(vc.files, f)
		vc.sizes = append(vc.sizes, f.size.Load())
	}
	return vc
}

func (vc *vlogCopy) release() {
	for _, f := range vc.files {
		f.release()
	}
	vc.files = nil
}

// copyTo writes the captured files into dir/vlog, synced, with a CLEAN marker, and returns the
// bytes copied.
func (vc *vlogCopy) copyTo(dir string) (int64, error) {
	if len(vc.files) == 0 {
		return 0, nil
	}
	out := filepath.Join(dir, vlogDirName)
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	var total int64
	for i, f := range vc.files {
		dst, err := os.Create(filepath.Join(out, vlogFileName(f.num)))
		if err != nil {
			return total, err
		}
		n, err := io.Copy(dst, io.NewSectionReader(f.f, 0, vc.sizes[i]))
		total += n
		if err == nil {
			err = dst.Sync()
		}
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return total, err
		}
	}
	clean, err := os.Create(filepath.Join(out, vlogCleanName))
	if err != nil {
		return total, err
	}
	if err := clean.Close(); err != nil {
		return total, err
	}
	return total, syncDir(out)
}
