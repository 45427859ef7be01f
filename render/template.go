package render

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"countsim/scenarios"
)

// Template is a parsed template file: the scenarios its front matter names
// and its text, parsed by text/template with the functions of funcs.
//
// The file opens with a front matter between two lines of "---":
//
//	---
//	scenarios: cricket-final, search, trending
//	---
//
// scenarios (required) lists the scenarios behind the page, built-in names
// or YAML files (a relative path is taken from the template's folder), as
// `countsim run` takes them. Nothing else may stand there.
type Template struct {
	// File names the template in messages and in the pages rendered from
	// it: its path, or builtin:NAME for a built-in.
	File      string
	Scenarios []string
	// ScenariosLine is the line of the scenarios key, for a message about
	// one of them.
	ScenariosLine int
	tmpl          *template.Template
}

// The characters that mark a figure with a tolerance in the text as it is
// executed, taken out before the page is written (figures.go). A template
// may not hold them.
const (
	markOpen  = '\uE000'
	markMid   = '\uE001'
	markClose = '\uE002'
)

// Parse parses a template file's bytes. Every error is a
// *scenarios.Error naming file and line.
func Parse(file string, src []byte) (*Template, error) {
	text := string(src)
	if i := strings.IndexFunc(text, func(r rune) bool { return r == markOpen || r == markMid || r == markClose }); i >= 0 {
		return nil, errAt(file, 1+strings.Count(text[:i], "\n"), "the characters U+E000–U+E002 are render's own marks (allowed: any other text)")
	}
	lines := strings.SplitAfter(text, "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], "\r\n") != "---" {
		return nil, errAt(file, 1, `a template opens with its front matter: a line "---", "scenarios: NAME, …", a line "---"`)
	}
	t := &Template{File: file}
	end := -1
	for i := 1; i < len(lines); i++ {
		line := strings.TrimRight(lines[i], "\r\n")
		if line == "---" {
			end = i
			break
		}
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		key = strings.TrimSpace(key)
		if !ok {
			return nil, errAt(file, i+1, "front matter: want KEY: VALUE (allowed keys: scenarios)")
		}
		switch key {
		case "scenarios":
			if t.Scenarios != nil {
				return nil, errAt(file, i+1, "front matter: scenarios given twice (line %d)", t.ScenariosLine)
			}
			t.ScenariosLine = i + 1
			t.Scenarios = []string{}
			for name := range strings.SplitSeq(val, ",") {
				name = strings.TrimSpace(name)
				if name == "" {
					return nil, errAt(file, i+1, "front matter: scenarios: want names separated by commas, got %q", strings.TrimSpace(val))
				}
				t.Scenarios = append(t.Scenarios, name)
			}
		default:
			return nil, errAt(file, i+1, "front matter: unknown key %q (allowed: scenarios)%s", key, scenarios.DidYouMean(key, []string{"scenarios"}))
		}
	}
	if end < 0 {
		return nil, errAt(file, strings.Count(strings.TrimRight(text, "\n"), "\n")+1, `front matter: no closing line "---"`)
	}
	if len(t.Scenarios) == 0 {
		return nil, errAt(file, end+1, "front matter: no scenarios: line (want scenarios: NAME, …)")
	}
	// The body keeps its lines' numbers: the front matter's lines are
	// blank lines before it, trimmed off the page (Execute).
	body := strings.Repeat("\n", end+1) + strings.Join(lines[end+1:], "")
	tmpl, err := template.New(file).Option("missingkey=error").Funcs(funcStubs).Parse(body)
	if err != nil {
		return nil, templateError(file, err)
	}
	t.tmpl = tmpl
	return t, nil
}

func errAt(file string, line int, format string, args ...any) *scenarios.Error {
	return scenarios.Errorf(scenarios.Pos{File: file, Line: line}, format, args...)
}

// tmplErr matches text/template's errors: "template: NAME:LINE: msg" or
// "template: NAME:LINE:COL: executing "NAME" at <CALL>: error calling F: msg".
var tmplErr = regexp.MustCompile(`^template: (?s:.*?):(\d+)(?::\d+)?: (?s:(.*))$`)
var undefinedFunc = regexp.MustCompile(`^function "(.*)" not defined$`)
var execErr = regexp.MustCompile(`^executing "(?s:.*?)" at (<.*?>): (?:error calling \w+: )?(?s:(.*))$`)

// templateError turns text/template's error into a *scenarios.Error at the
// template's file and line.
func templateError(file string, err error) error {
	msg := err.Error()
	m := tmplErr.FindStringSubmatch(strings.Replace(msg, "template: "+file+":", "template: x:", 1))
	if m == nil {
		return errAt(file, 0, "%s", msg)
	}
	line, _ := strconv.Atoi(m[1])
	rest := m[2]
	if e := execErr.FindStringSubmatch(rest); e != nil {
		rest = e[1] + ": " + e[2]
	}
	if f := undefinedFunc.FindStringSubmatch(rest); f != nil {
		names := funcNames()
		slices.Sort(names)
		rest += fmt.Sprintf(" (allowed: %s)%s", strings.Join(names, ", "), scenarios.DidYouMean(f[1], names))
	}
	return errAt(file, line, "%s", rest)
}

// names lists what a template may call, for a message refusing another.
func funcNames() []string {
	var out []string
	for name := range funcStubs {
		out = append(out, name)
	}
	return out
}

// String is the template's file, for messages.
func (t *Template) String() string { return fmt.Sprintf("template %s", t.File) }
