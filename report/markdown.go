package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"countsim/metrics"
)

// Markdown writes report.md with the structure of the HTML page: contents,
// per step the summary and notes, the charts (linked SVG files), every row
// and table, the manifest.
func Markdown(w io.Writer, r *Run) error {
	var b bytes.Buffer
	b.WriteString("# countsim report\n\n")
	if r.Partial {
		b.WriteString("**PARTIAL: the run was stopped before the end; the figures cover the events fed so far.**\n\n")
	}
	b.WriteString("Contents:\n\n")
	for _, sc := range r.Scenarios {
		fmt.Fprintf(&b, "- [%s](#%s)\n", sc.Title, anchor("scenario", sc.Name))
	}
	b.WriteString("- [Manifest](#manifest)\n\n")
	b.WriteString("**Marks:** " + Legend + "\n\n")
	for i := range r.Scenarios {
		sc := &r.Scenarios[i]
		fmt.Fprintf(&b, "<a id=\"%s\"></a>\n\n## %s\n\nScenario `%s` (%s), seed %d.\n\n", anchor("scenario", sc.Name), sc.Title, sc.Name, sc.File, sc.Seed)
		for j := range sc.Steps {
			st := &sc.Steps[j]
			if st.Name != "" {
				fmt.Fprintf(&b, "### %s\n\n", st.heading(sc))
			}
			if d := strings.TrimSpace(st.Description); d != "" {
				b.WriteString(d + "\n\n")
			}
			b.WriteString(st.Describe + "\n\n")
			for _, n := range st.Notes {
				b.WriteString("**Note:** " + n + "\n\n")
			}
			mdSummary(&b, sc, st)
			for _, f := range st.Figures {
				b.WriteString(f + "\n\n")
			}
			for _, c := range st.Charts {
				fmt.Fprintf(&b, "![%s](%s)\n\n", c.Title, c.Path)
			}
		}
		for _, c := range sc.Charts {
			fmt.Fprintf(&b, "![%s](%s)\n\n", c.Title, c.Path)
		}
		fmt.Fprintf(&b, "#### Every figure of %s\n\n", sc.Name)
		_ = metrics.WriteMarkdown(&b, sc.Results)
		b.WriteString("\n")
		for _, t := range sc.Tables {
			fmt.Fprintf(&b, "%s (also tables/%s-%s.csv):\n\n", t.Title, t.Scenario, t.Name)
			_ = metrics.WriteTableMarkdown(&b, t)
			b.WriteString("\n")
		}
	}
	b.WriteString("<a id=\"manifest\"></a>\n\n## Manifest\n\n```json\n")
	b.Write(bytes.TrimSpace(r.Manifest))
	b.WriteString("\n```\n\n" + footnote + "\n")
	_, err := w.Write(b.Bytes())
	return err
}

// mdSummary writes a step's summary as a markdown table, and its
// expectations' tally. Each question names the metric it stands for; past
// maxColumns designs, the designs are the rows.
func mdSummary(b *bytes.Buffer, sc *Scenario, st *Step) {
	rows := distinct(sc.Summary(st))
	label := func(r Row) string {
		s := r.Question + " (`" + string(r.Metric) + "`)"
		if r.Part != "" {
			s += " — " + r.Part
		}
		return s
	}
	switch {
	case len(rows) == 0 || len(st.Designs) == 0:
	case byDesign(st, rows):
		b.WriteString("| design |")
		for _, row := range rows {
			b.WriteString(" " + label(row) + " |")
		}
		b.WriteString("\n|---|" + strings.Repeat("---:|", len(rows)) + "\n")
		for k, d := range st.Designs {
			b.WriteString("| " + d + " |")
			for _, row := range rows {
				b.WriteString(" " + row.Cells[k].text() + " |")
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	default:
		b.WriteString("| question | " + strings.Join(st.Designs, " | ") + " |\n|---|")
		for range st.Designs {
			b.WriteString("---:|")
		}
		b.WriteString("\n")
		for _, row := range rows {
			b.WriteString("| " + label(row) + " |")
			for _, c := range row.Cells {
				b.WriteString(" " + c.text() + " |")
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	if t := st.tally(); t != "" {
		fmt.Fprintf(b, "%s\n\n", t)
		for _, v := range st.failed() {
			fmt.Fprintf(b, "- ✘ %s: `%s`\n", v.Design, v.why())
		}
		if len(st.failed()) > 0 {
			b.WriteString("\n")
		}
	}
}

// Text writes the short summary a run prints: per scenario and step its
// title, then a line a design with its answers to the summary's questions
// (value / plan, ✔, ⚠ or ✘), and the expectations' tally. The full tables are
// in the report folder.
func Text(w io.Writer, r *Run) error {
	var b bytes.Buffer
	if r.Partial {
		b.WriteString("PARTIAL: the run was stopped before the end.\n\n")
	}
	if r.judged() {
		b.WriteString("Marks: " + Legend + "\n\n")
	}
	for i := range r.Scenarios {
		sc := &r.Scenarios[i]
		for j := range sc.Steps {
			st := &sc.Steps[j]
			id := sc.Name
			if st.Name != "" {
				id += "/" + st.Name
			}
			fmt.Fprintf(&b, "%s — %s\n", id, st.heading(sc))
			rows := distinct(sc.Summary(st))
			tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
			for k, d := range st.Designs {
				// A question's parts in one: "distinct count error, %
				// day 1 0.59 / 0.81, day 2 -0.39 / 0.81".
				var parts []string
				var last metrics.Metric
				for _, row := range rows {
					t := row.Cells[k].text()
					switch {
					case t == "":
					case row.Part != "" && row.Metric == last && len(parts) > 0:
						parts[len(parts)-1] += ", " + row.Part + " " + t
					case len(parts) < 7:
						if row.Part != "" {
							t = row.Part + " " + t
						}
						parts = append(parts, row.Question+" "+t)
						last = row.Metric
					}
				}
				fmt.Fprintf(tw, "  %s\t%s\n", d, strings.Join(parts, "; "))
			}
			tw.Flush()
			if t := st.tally(); t != "" {
				fmt.Fprintf(&b, "  %s", strings.TrimSuffix(t, "."))
				for _, v := range st.failed() {
					fmt.Fprintf(&b, "; ✘ %s: %s", v.Design, v.why())
				}
				b.WriteString(".\n")
			}
			for _, n := range st.Notes {
				b.WriteString("  Note: " + n + "\n")
			}
			b.WriteString("\n")
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// distinct drops the rows that tell the designs apart in nothing: the same
// value for each design that has one (two at least), no plan and no mark
// (a summary has no room for "largest overestimate 0" under every hot
// counter; the row is in the scenario's every figure). A part of a
// question stays while another part of it does (the fade's latency, 60 s
// under every design, beside the burst's).
func distinct(rows []Row) []Row {
	keep := make([]bool, len(rows))
	kept := map[metrics.Metric]bool{}
	for i, r := range rows {
		same, first, n := true, "", 0
		for _, c := range r.Cells {
			switch {
			case c.Mark != "" || c.Plan != "":
				same = false
			case c.Value == "":
			case n == 0:
				first, n = c.Value, 1
			case c.Value != first:
				same = false
			default:
				n++
			}
		}
		keep[i] = !(same && n > 1)
		kept[r.Metric] = kept[r.Metric] || keep[i]
	}
	var out []Row
	for i, r := range rows {
		if keep[i] || r.Part != "" && kept[r.Metric] {
			out = append(out, r)
		}
	}
	return out
}
