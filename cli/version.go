package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// heedModule is heed's module path: a spider program's build lists it
// among its dependencies.
const heedModule = "github.com/heedcrawl/heed"

// versionText says what the program is: its module and version, the VCS
// revision it was built from (with its time, and "modified" when the
// working tree had changes), heed's version when the program is not heed
// itself, and the Go version and platform. bi is the program's build
// information (nil when the binary carries none).
func versionText(name string, bi *debug.BuildInfo) string {
	var b strings.Builder
	if bi == nil {
		fmt.Fprintf(&b, "%s: no build information in this binary\n", name)
		fmt.Fprintf(&b, "go: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return b.String()
	}
	fmt.Fprintf(&b, "%s %s (module %s)\n", name, orDevel(bi.Main.Version), bi.Main.Path)
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		fmt.Fprintf(&b, "revision: %s", rev)
		var notes []string
		if at != "" {
			notes = append(notes, at)
		}
		if modified == "true" {
			notes = append(notes, "modified")
		}
		if len(notes) > 0 {
			fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
		}
		fmt.Fprintln(&b)
	} else {
		fmt.Fprintln(&b, "revision: unknown (built without VCS information)")
	}
	if bi.Main.Path != heedModule {
		for _, d := range bi.Deps {
			if d.Path == heedModule {
				v := d.Version
				if d.Replace != nil {
					v = fmt.Sprintf("%s => %s %s", v, d.Replace.Path, orDevel(d.Replace.Version))
				}
				fmt.Fprintf(&b, "heed: %s\n", v)
			}
		}
	}
	goVersion := bi.GoVersion
	if goVersion == "" {
		goVersion = runtime.Version()
	}
	fmt.Fprintf(&b, "go: %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}

func orDevel(v string) string {
	if v == "" {
		return "(devel)"
	}
	return v
}

// buildVersion is versionText of the running binary.
func buildVersion(name string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return versionText(name, bi)
}

func (a *App) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the VCS revision built from, and the Go version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprint(a.stdout, buildVersion(a.name))
			return nil
		},
	}
}
