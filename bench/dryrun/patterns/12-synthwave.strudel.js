// bench/dryrun: synthwave, 100 bpm, in G
setcpm(100/4)

// drums made from synthesizers: a sine kick and noise hats
$: note("c1*4").s("sine").penv(24).pdecay(.08).decay(.3).sustain(0).gain(1.1)
$: s("[~ white]*4").decay(.05).sustain(0).hpf(7000).gain(.35)
$: s("~ pink").decay(.15).sustain(0).hpf(1500).gain(.4)

// bass: a soundfont bass, syncopated
$: note("g2 ~ [~ g2] ~ g2 [~ g3] ~ g2").s("gm_acoustic_bass").gain(.8).lpf(2000)

// chords: voiced, off-beat stabs with delay
$: chord("<C G Am F>").voicing().s("gm_pad_warm")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// pad: long chords with a slow attack
$: chord("<C G Am F>").voicing().s("sawtooth")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: an arpeggio with an octave echo on the off-beats
$: n("0 2 4 <6 7> 4 2 <1 3> 0").scale("G4:minor").s("supersaw")
  .off(1/8, x => x.add(n(7)).gain(.2)).lpf(2500).decay(.15).sustain(.3)
  .delay(.3).delaytime(.375).delayfeedback(.35).gain(.3)

// texture: zzfx blips
$: s("zzfx*2").note("<c6 g6>").decay(.05).sustain(0).gain(.1).pan(rand)
