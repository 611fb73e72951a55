// bench/dryrun: synthwave, 100 bpm, in E
setcpm(100/4)

// drums made from synthesizers: a sine kick and noise hats
$: note("c1*4").s("sine").penv(24).pdecay(.08).decay(.3).sustain(0).gain(1.1)
$: s("[~ white]*4").decay(.05).sustain(0).hpf(7000).gain(.35)
$: s("~ pink").decay(.15).sustain(0).hpf(1500).gain(.4)

// bass: a sub sine under everything
$: note("<e1 e1 [e1 ~] e2>").s("sine").sustain(1).release(.2).gain(.7)

// chords: voiced, off-beat stabs with delay
$: chord("<G D Em C>").voicing().s("gm_synth_bass_1")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a melody that changes every cycle, panned wide
$: note("<[e5 ~ e5 ~] [~ e4 ~ e5] [e5 e4 ~ ~] [~ ~ e4 ~]>")
  .add(note("<0 3 5 7>")).s("gm_epiano1").jux(rev).room(.5).gain(.25)

// muted idea, kept for later
_$: s("cp*8").gain(.3)

// everything a little wider
all(x => x.room(.1))
