// bench/dryrun: ambient, 74 bpm, in G
setcpm(74/4)

// drums made from synthesizers: a sine kick and noise hats
$: note("c1*4").s("sine").penv(24).pdecay(.08).decay(.3).sustain(0).gain(1.1)
$: s("[~ white]*4").decay(.05).sustain(0).hpf(7000).gain(.35)
$: s("~ pink").decay(.15).sustain(0).hpf(1500).gain(.4)

// bass: a sub sine under everything
$: note("<g1 g1 [g1 ~] g2>").s("sine").sustain(1).release(.2).gain(.7)

// chords: voiced, off-beat stabs with delay
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("gm_acoustic_bass")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a melody that changes every cycle, panned wide
$: note("<[g5 ~ g5 ~] [~ g4 ~ g5] [g5 g4 ~ ~] [~ ~ g4 ~]>")
  .add(note("<0 3 5 7>")).s("gm_epiano1").jux(rev).room(.5).gain(.25)
