package render

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Stamp is what a rendered page records of where it came from, in an HTML
// comment on its last line: the template, the -set overrides it was
// rendered with, and its figures that may move (the value behind each, as
// written, and its tolerance). `countsim render -check` reads it back.
type Stamp struct {
	Template string   `json:"template"`
	Set      []string `json:"set,omitempty"`
	Measured []Mark   `json:"measured,omitempty"`
}

// Mark is a figure with a tolerance as the stamp records it.
type Mark struct {
	Value float64 `json:"v"`
	Text  string  `json:"text"`
	Tol   string  `json:"tol"`
}

const stampPrefix = "<!-- countsim-render "

// Document is the page's text as written to its file: the text, a line
// saying how it is made, and the stamp.
func (p *Page) Document(template string, sets []string) (string, error) {
	s := Stamp{Template: template, Set: sets}
	for _, f := range p.Figures {
		s.Measured = append(s.Measured, Mark{Value: f.Value, Text: f.Text, Tol: f.Tol.Text})
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	if strings.Contains(string(b), "--") {
		return "", fmt.Errorf("render: the stamp would hold \"--\", which ends an HTML comment: %s", b)
	}
	text := strings.TrimRight(p.Text, "\n") + "\n"
	return text + "\n<!-- Written by `countsim render " + template + "`: edit the template, not this file; `countsim render -check FILE` tells whether its numbers have moved. -->\n" +
		stampPrefix + string(b) + " -->\n", nil
}

// ReadDocument splits a rendered file into its text (as Page.Text was)
// and its stamp; ok is false for a file that holds no stamp (not a
// rendered page).
func ReadDocument(doc string) (text string, s Stamp, ok bool, err error) {
	body := strings.TrimRight(doc, "\n")
	i := strings.LastIndex(body, "\n"+stampPrefix)
	if i < 0 {
		if !strings.HasPrefix(body, stampPrefix) {
			return "", s, false, nil
		}
		i = -1
	}
	line := strings.TrimSuffix(body[i+1+len(stampPrefix):], " -->")
	if err := json.Unmarshal([]byte(line), &s); err != nil {
		return "", s, true, fmt.Errorf("its stamp (last line) does not read: %v", err)
	}
	if s.Template == "" {
		return "", s, true, fmt.Errorf("its stamp (last line) names no template")
	}
	text = body[:max(i, 0)]
	if j := strings.LastIndex(text, "\n<!-- Written by `countsim render "); j >= 0 {
		text = text[:j]
	}
	return strings.TrimRight(text, "\n") + "\n", s, true, nil
}
