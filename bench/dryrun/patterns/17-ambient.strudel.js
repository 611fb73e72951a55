// bench/dryrun: ambient, 74 bpm, in Eb
setcpm(74/4)

// drums made from synthesizers: a sine kick and noise hats
$: note("c1*4").s("sine").penv(24).pdecay(.08).decay(.3).sustain(0).gain(1.1)
$: s("[~ white]*4").decay(.05).sustain(0).hpf(7000).gain(.35)
$: s("~ pink").decay(.15).sustain(0).hpf(1500).gain(.4)

// bass: a sub sine under everything
$: note("<eb1 eb1 [eb1 ~] eb2>").s("sine").sustain(1).release(.2).gain(.7)

// chords: voiced, off-beat stabs with delay
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("gm_string_ensemble_1")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: a soundfont melody with a call and response
$: note("<[eb4 eb5] [eb5 eb4]>(3,8)").add(note("<0 5 7 3>")).s("gm_vibraphone")
  .every(2, x => x.rev()).room(.4).gain(.5)

// texture: filtered noise sweeps
$: s("white").lpf(sine.range(200, 4000).slow(16)).attack(1).release(2).sustain(1).gain(.05)

// everything a little wider
all(x => x.room(.1))
