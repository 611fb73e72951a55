// bench/dryrun: electro, 122 bpm, in E
setcpm(122/4)

// drums: euclidean layers
$: s("bd(3,8), sd(2,8,2), hh(7,16)").bank("RolandTR707")
  .every(4, x => x.fast(2)).gain(.8)
$: s("rim(5,16,3)").bank("RolandTR707").gain(.4).room(.3)

// bass: a soundfont bass, syncopated
$: note("e2 ~ [~ e2] ~ e2 [~ e3] ~ e2").s("gm_acoustic_bass").gain(.8).lpf(2000)

// chords: voiced, off-beat stabs with delay
$: chord("<Cm7 Ab^7 Fm7 G7>").voicing().s("triangle")
  .struct("~ x ~ x").decay(.3).sustain(.2).delay(.25).room(.4).gain(.35)

// lead: an arpeggio with an octave echo on the off-beats
$: n("0 2 4 <6 7> 4 2 <1 3> 0").scale("E4:minor").s("supersaw")
  .off(1/8, x => x.add(n(7)).gain(.2)).lpf(2500).decay(.15).sustain(.3)
  .delay(.3).delaytime(.375).delayfeedback(.35).gain(.3)

// muted idea, kept for later
_$: s("cp*8").gain(.3)
