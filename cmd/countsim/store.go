package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"

	"countsim/redisstore"
	"countsim/scenarios"
	"countsim/strategies"
)

// The real store of `countsim run -store URL` (or a scenario's store:
// block): the designs that live on servers run a second time on Redis.
// Every scenario is prepared against a backend not yet connected, so that
// bad input is refused (exit 2) before any connection; the backends are
// connected once everything is checked, and a store that cannot be reached
// fails the run (exit 1) before anything is written.

// storeFlags are run's flags of the real store.
func storeFlags(fs *flag.FlagSet, env *cmdEnv) {
	fs.Func("store", "also run the designs that live on servers on the real Redis at `URL`: redis://host:port[/db] or redis-cluster://host:port,host:port,…", func(s string) error {
		if err := redisstore.CheckURL(s); err != nil {
			return err
		}
		env.store.URL = s
		return nil
	})
	fs.Func("pace", "with a real store, send a timed stream's ops at `real|max` pace: real (at their times, open loop; the default) or max (as fast as the store answers)", func(s string) error {
		if err := redisstore.CheckPace(s); err != nil {
			return err
		}
		env.store.Pace = s
		return nil
	})
	fs.BoolVar(&env.store.Keep, "keep", false, "leave the run's keys on the real store (by default they are deleted after the run)")
}

// lazyStore is a real store's backend, named before it is connected.
type lazyStore struct {
	cfg redisstore.Config
	b   *redisstore.Backend
}

func (l *lazyStore) Name() string { return "redis" }

func (l *lazyStore) Open(ctx context.Context, design string, paced bool, fail func(error)) (strategies.RealStore, error) {
	if l.b == nil {
		return nil, errors.New("the real store is not connected")
	}
	return l.b.Open(ctx, design, paced, fail)
}

// storeFor is the backend of scenario scn in a run: -store's, else its
// store: block's, else none. Backends of one configuration are shared.
func (env *cmdEnv) storeFor(scn *scenarios.Scenario) strategies.Backend {
	if !env.realStores {
		return nil // plan, validate and check never reach a real store
	}
	cfg := env.store
	if cfg.URL == "" {
		if scn.Store == nil {
			return nil
		}
		cfg = redisstore.Config{URL: scn.Store.URL, Pace: scn.Store.Pace, Keep: scn.Store.Keep}
	}
	for _, l := range env.stores {
		if l.cfg == cfg {
			return l
		}
	}
	l := &lazyStore{cfg: cfg}
	env.stores = append(env.stores, l)
	return l
}

// connectStores connects every backend the prepared scenarios named.
func (env *cmdEnv) connectStores(ctx context.Context) error {
	for _, l := range env.stores {
		b, err := redisstore.Connect(ctx, l.cfg)
		if err != nil {
			return err
		}
		l.b = b
		fmt.Fprintf(env.stderr, "countsim: real store %s (%s), keys under %s*, pace %s\n",
			l.cfg.URL, plural(len(b.Nodes()), "node"), b.Prefix(), cmp.Or(l.cfg.Pace, redisstore.PaceReal))
	}
	return nil
}

// closeStores closes the connections, saying where kept keys are.
func (env *cmdEnv) closeStores() {
	for _, l := range env.stores {
		if l.b == nil {
			continue
		}
		if l.cfg.Keep {
			fmt.Fprintf(env.stderr, "countsim: the run's keys are kept on %s under %s*\n", l.cfg.URL, l.b.Prefix())
		}
		l.b.Close()
	}
}
